/**
 * The longest search query text: a question, or a pasted passage to find what resembles it
 * (longer than anything typed in a search box; still well inside a URL's limits). Read by the
 * search DTOs, the search service and the MCP search tool.
 */
export const SEARCH_QUERY_MAX = 2_000;

/**
 * The longest query the files component's search takes (FilesService.SearchFiles, and its route);
 * workspace search asks it with the opening of a longer query.
 */
export const FILE_SEARCH_QUERY_MAX_CHARS = 500;
