/** Field and paging limits of the search component, read by DTOs, handlers and docs. */

/** Search modes (the proto's SearchQuery.mode, a contract value), and the paging of search results. */
export { SEARCH_MODES, type SearchMode } from '@kw/contracts';
/** The longest query text (a contract limit: the MCP search tool reads it too). */
export { SEARCH_QUERY_MAX } from '@kw/contracts';
/** What an embedding or rerank model reads of a longer query: its opening. */
export { SEARCH_QUERY_MODEL_CHARS } from '@kw/contracts';
export const SEARCH_LIMIT_DEFAULT = 20;
/** The page's bounds (contract limits: the MCP tools read them too): at most 100, offsets up to the retrieval depth (500). */
export { SEARCH_LIMIT_MAX, RETRIEVAL_DEPTH } from '@kw/contracts';

/** Paging and shape limits of the structured listing. */
export const LISTING_LIMIT_DEFAULT = 50;
export const LISTING_LIMIT_MAX = 500;
export const LISTING_OFFSET_MAX = 1_000_000;
export const LISTING_ORDER_MAX = 3;

/** Limits of the graph routes (depth and result count are contract limits: the MCP related tool reads them). */
export { GRAPH_DEPTH_MAX, GRAPH_SEARCH_LIMIT_MAX } from '@kw/contracts';
/** A traversal stops adding nodes past this many (the answer says `truncated`). */
export const GRAPH_NODES_MAX = 200;
export const GRAPH_FRAGMENTS_PER_NODE = 10;
export const GRAPH_SEARCH_LIMIT_DEFAULT = 20;
/** Compared with entity names (a contract limit: the MCP related tool reads it too). */
export { GRAPH_QUERY_MAX } from '@kw/contracts';

/** Limits of agentic search. Its query is as long as a search query (a contract limit). */
export { AGENTIC_QUERY_MAX } from '@kw/contracts';
export const AGENTIC_MAX_LEADS_DEFAULT = 10;
/** At most this many leads (a contract limit: the MCP agentic_search tool reads it). */
export { AGENTIC_MAX_LEADS } from '@kw/contracts';
/** Keywords kept from a query, and candidates each retrieval brings. */
export const AGENTIC_TERMS_MAX = 8;
export const AGENTIC_CANDIDATES = 50;
export const AGENTIC_SNIPPET_CHARS = 200;
