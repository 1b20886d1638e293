import { describe, expect, it } from 'vitest';
import { RETRIEVAL_DEPTH, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './search-query.js';
import { pageOf } from './search-paging.js';

describe('pageOf', () => {
  it('takes a limit up to the maximum and an offset up to the retrieval depth; 0 is the default limit', () => {
    expect(pageOf(0, 0)).toEqual({ limit: SEARCH_LIMIT_DEFAULT, offset: 0 });
    expect(pageOf(SEARCH_LIMIT_MAX, RETRIEVAL_DEPTH)).toEqual({ limit: SEARCH_LIMIT_MAX, offset: RETRIEVAL_DEPTH });
  });

  it('refuses what the REST edge refuses, with its answer, for callers on the bus (no silent empty page)', () => {
    for (const [limit, offset, field] of [
      [SEARCH_LIMIT_MAX + 1, 0, 'limit'],
      [-1, 0, 'limit'],
      [10, RETRIEVAL_DEPTH + 1, 'offset'],
      [10, -1, 'offset'],
    ] as const)
      expect(() => pageOf(limit, offset), `${limit} ${offset}`).toThrow(
        expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED', param: field }),
      );
  });
});
