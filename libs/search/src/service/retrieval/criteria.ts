import { badRequest } from '@kw/platform-errors';
import { parseMode, type SearchCriteria } from './search-query.js';
import { isUuid } from '@kw/platform-ids';
import { SEARCH_QUERY_MAX } from '../../search-limits.js';
import { searchText } from '@kw/platform-query-reading';

/** The contract's SearchQuery as the retrievers take it (a malformed collection id is a 400, not a 500). */
/** The fields of the contract's SearchQuery (also what a saved search stores). */
export interface SearchQueryFields {
  query: string;
  mode: string;
  types: string[];
  tags: string[];
  collectionId: string;
}

export function criteriaOf(search: SearchQueryFields | undefined): SearchCriteria {
  const collectionId = search?.collectionId || undefined;
  if (collectionId && !isUuid(collectionId)) throw badRequest('collectionId must be a UUID');
  // Enforced again here for callers other than the HTTP edge (agent tools, other services).
  const query = (search?.query ?? '').trim();
  if (query.length > SEARCH_QUERY_MAX) throw badRequest(`q must be at most ${SEARCH_QUERY_MAX} characters`);
  return {
    query: searchText(query),
    mode: parseMode(search?.mode),
    types: search?.types ?? [],
    tags: search?.tags ?? [],
    collectionId,
  };
}
