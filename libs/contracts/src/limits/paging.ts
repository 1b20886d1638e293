// Page bounds of the routes the agent (MCP) tools mirror, defined once: the REST DTOs, the
// services and the tool schemas read them, so a tool cannot take an offset its route refuses
// (and answer nothing for it) or refuse a limit its route takes.

/** Workspace search's page (GET /api/search, /simple, /global, saved-search runs; the search tool). */
export const SEARCH_LIMIT_MAX = 100;
/**
 * Each retriever of workspace search contributes at most this many candidates, so results
 * beyond are not reachable: the largest `offset` of a search.
 */
export const RETRIEVAL_DEPTH = 500;

/** Agentic search's leads (POST /api/fragments/agentic-search; the agentic_search tool). */
export const AGENTIC_MAX_LEADS = 50;

/** Graph traversal depth and result counts (the graph routes; the related tool). */
export const GRAPH_DEPTH_MAX = 3;
export const GRAPH_SEARCH_LIMIT_MAX = 100;

/** The fragment list's offset (GET /api/memory-fragments; the list_fragments tool). */
export const FRAGMENT_LIST_OFFSET_MAX = 10_000_000;

/** Files search (GET /api/files/search; the search_workspace_files tool). */
export const FILE_SEARCH_PAGE_MAX = 100;
export const FILE_SEARCH_OFFSET_MAX = 100_000;
/** The files listing (GET /api/files; the list_workspace_files tool); offsets beyond are refused (use filters). */
export const FILE_LIST_PAGE_MAX = 100;
export const FILE_LIST_OFFSET_MAX = 100_000;
/** The first chunk a read of a file's text may start at (GET /api/files/{id}/chunks; read_workspace_file). */
export const FILE_CHUNKS_OFFSET_MAX = 1_000_000;

/** Pages of experts and embed configurations (GET /api/v2/experts, /api/v2/configs; their list tools). */
export const CHAT_PAGE_MAX = 100;
/** Offsets fit the contracts' int32 with room to spare; nobody pages a million experts. */
export const CHAT_OFFSET_MAX = 1_000_000;
