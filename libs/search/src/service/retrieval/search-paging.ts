import { RETRIEVAL_DEPTH, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './search-query.js';

/** Limit and offset as the service applies them (0 means "default"; offsets past the retrieval depth find nothing). */
export function pageOf(limit: number, offset: number): { limit: number; offset: number } {
  return {
    limit: limit > 0 ? Math.min(limit, SEARCH_LIMIT_MAX) : SEARCH_LIMIT_DEFAULT,
    offset: Math.min(Math.max(offset, 0), RETRIEVAL_DEPTH),
  };
}
