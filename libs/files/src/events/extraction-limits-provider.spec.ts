import { describe, expect, it } from 'vitest';
import { loadConfig } from '@kw/platform-config';
import { DEFAULT_EXTRACTION_LIMITS } from '../service/extraction/extraction-limits.js';
import { extractionLimitsProvider } from './file-processing.worker.js';

describe('extractionLimitsProvider', () => {
  it('takes the timeout and the DOCX XML bound from the environment, the other limits as defined', () => {
    const config = loadConfig({ FILES_EXTRACTION_TIMEOUT_MS: '1500', FILES_DOCX_MAX_XML_BYTES: '4096' });
    expect(extractionLimitsProvider.useFactory(config)).toEqual({
      ...DEFAULT_EXTRACTION_LIMITS,
      timeoutMs: 1500,
      maxDocxXmlBytes: 4096,
    });
    expect(extractionLimitsProvider.useFactory(loadConfig({})).maxDocxXmlBytes).toBe(64 * 1024 * 1024);
  });
});
