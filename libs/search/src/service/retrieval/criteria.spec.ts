import { describe, expect, it } from 'vitest';
import { SEARCH_QUERY_MAX } from '../../search-limits.js';
import { criteriaOf } from './criteria.js';

const fields = (query: string, collectionId = '') => ({ query, mode: '', types: [], tags: [], collectionId });

describe('criteriaOf', () => {
  it('takes a query of up to SEARCH_QUERY_MAX characters, trimmed, hybrid by default', () => {
    const query = 'q'.repeat(SEARCH_QUERY_MAX);
    expect(criteriaOf(fields(`  ${query}  `))).toMatchObject({ query, mode: 'hybrid' });
  });

  it('reads the query in Unicode NFC: a word typed decomposed is the composed word', () => {
    expect(criteriaOf(fields('cafe\u0301 Zu\u0308rich')).query).toBe('caf\u00e9 Z\u00fcrich');
  });

  it('refuses a longer query and a malformed collection id with 400, for callers the HTTP edge did not check', () => {
    expect(() => criteriaOf(fields('q'.repeat(SEARCH_QUERY_MAX + 1)))).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(() => criteriaOf(fields('q', 'not-a-uuid'))).toThrow(expect.objectContaining({ status: 400 }));
  });
});
