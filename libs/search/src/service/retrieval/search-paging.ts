import { invalidField } from '@kw/platform-errors';
import { RETRIEVAL_DEPTH, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './search-query.js';

/**
 * Limit and offset as the service applies them (a limit of 0 means "default"). What the REST
 * edge refuses is refused here too, with its answer (400 VALIDATION_FAILED naming the field), for
 * callers on the bus: an offset past the retrieval depth used to find nothing, silently.
 */
export function pageOf(limit: number, offset: number): { limit: number; offset: number } {
  if (limit < 0) throw invalidField('limit', 'limit must not be less than 1');
  if (limit > SEARCH_LIMIT_MAX) throw invalidField('limit', `limit must not be greater than ${SEARCH_LIMIT_MAX}`);
  if (offset < 0) throw invalidField('offset', 'offset must not be less than 0');
  if (offset > RETRIEVAL_DEPTH) throw invalidField('offset', `offset must not be greater than ${RETRIEVAL_DEPTH}`);
  return { limit: limit || SEARCH_LIMIT_DEFAULT, offset };
}
