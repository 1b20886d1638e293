/**
 * The longest search query text: a question, or a pasted passage or page to find what resembles
 * it (an argument, an abstract with its title). Read by the search DTOs, the search service and
 * the MCP search tool. 8,000 Latin characters, their spaces and punctuation percent-encoded, stay
 * inside the 16 KiB an HTTP request line and headers may take (431 beyond).
 */
export const SEARCH_QUERY_MAX = 8_000;

/**
 * What a model reads of a longer search query: its opening, the first 2,000 characters (about
 * 500 tokens, what most embedding and rerank models read at all; some servers refuse more
 * rather than cut). BM25 ranks by the query's first 48 words anyway (docs/search.md).
 */
export const SEARCH_QUERY_MODEL_CHARS = 2_000;

/**
 * The retrievers a search asks (SearchQuery.mode of workspace search, SearchFilesRequest.mode of
 * files search): both fused, words only (BM25), or meaning only (vectors).
 */
export type SearchMode = 'hybrid' | 'keyword' | 'semantic';
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'keyword', 'semantic'];

/**
 * Agentic search reads a question or a pasted passage as search does: the same bound (REST, the
 * search service through MESSAGE_LIMITS, the MCP agentic_search tool).
 */
export const AGENTIC_QUERY_MAX = SEARCH_QUERY_MAX;

/**
 * Graph queries (entity search, graph-guided retrieval, the MCP related tool) are compared with
 * entity names: a phrase, not a passage.
 */
export const GRAPH_QUERY_MAX = 500;

/** The web search's query (the chat component's route and the MCP web_search tool). */
export const WEB_SEARCH_QUERY_MAX = 2_000;

/**
 * The longest query the files component's search takes (FilesService.SearchFiles, and its route);
 * workspace search asks it with the opening of a longer query.
 */
export const FILE_SEARCH_QUERY_MAX_CHARS = 500;

/**
 * The most words and phrases a files search excludes (SearchFilesRequest.exclude): a search's
 * exclusions, which come from a query with search syntax, at most 16 words (SYNTAX_WORDS_MAX in
 * @kw/platform-query-reading). Each is at most FILE_SEARCH_QUERY_MAX_CHARS.
 */
export const FILE_SEARCH_EXCLUSIONS_MAX = 16;

/** Files shown beside a workspace search's first page of fragments (GET /api/search, the MCP search tool). */
export const FILE_HITS_BESIDE_SEARCH = 5;

/** The most chunks of a file's text one read answers (FilesService.ReadFileChunks, its route, the read_workspace_file tool). */
export const FILE_CHUNKS_PAGE_MAX = 50;
