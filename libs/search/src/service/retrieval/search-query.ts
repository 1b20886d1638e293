import { SEARCH_MODES, type SearchMode } from '../../search-limits.js';

export {
  RETRIEVAL_DEPTH,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_MODES,
  type SearchMode,
} from '../../search-limits.js';

/** What to search for and how (the proto's SearchQuery, normalised). */

export interface SearchCriteria {
  query: string;
  mode: SearchMode;
  types: string[];
  tags: string[];
  collectionId?: string;
}

/** Below this cosine similarity a chunk is not considered about the query. */
export const MIN_SIMILARITY = 0.1;

export function parseMode(value: string | undefined): SearchMode {
  return SEARCH_MODES.includes(value as SearchMode) ? (value as SearchMode) : 'hybrid';
}
