/** What to search for and how (the proto's SearchQuery, normalised). */
export type SearchMode = 'hybrid' | 'keyword' | 'semantic';
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'keyword', 'semantic'];

export interface SearchCriteria {
  query: string;
  mode: SearchMode;
  types: string[];
  tags: string[];
  collectionId?: string;
}

export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
/** Each retriever contributes at most this many candidates; results beyond are not reachable. */
export const RETRIEVAL_DEPTH = 500;
/** Below this cosine similarity a chunk is not considered about the query. */
export const MIN_SIMILARITY = 0.1;

export function parseMode(value: string | undefined): SearchMode {
  return SEARCH_MODES.includes(value as SearchMode) ? (value as SearchMode) : 'hybrid';
}
