import mammoth from 'mammoth';
import { assertArchiveWithinLimits } from './archive-guard.js';
import { ExtractionError } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';

/** A DOCX's text, paragraphs separated by blank lines. mammoth inflates whole parts in memory: the archive is checked first. */
export async function docxText(bytes: Uint8Array, limits: ExtractionLimits): Promise<string> {
  await assertArchiveWithinLimits(bytes, limits.maxUnpackedBytes);
  try {
    const { value } = await mammoth.extractRawText({
      buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    });
    return value.trimEnd();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ExtractionError('malformed', `The DOCX cannot be read: ${detail}`, { cause: error });
  }
}
