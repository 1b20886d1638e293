import {
  FILE_HITS_BESIDE_SEARCH,
  FILE_SEARCH_EXCLUSIONS_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FilesService,
  type FileSearchHit,
} from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { readQuery, searchText } from '@kw/platform-query-reading';
import type { ServiceClient } from '@kw/platform-transport';

export interface FilesBesideSearchRequest {
  /** The workspace searched; absent for a global search (every readable workspace). */
  workspaceId?: string;
  /** The search's query as typed: read here as the fragments' search reads it. */
  query: string;
  offset: number;
  /** Filters only fragments have (types, tags, a collection): files cannot match them. */
  fragmentFilters: boolean;
}

/**
 * The files shown beside a search's fragments (GET /api/search and /api/search/global, and the
 * MCP search tool with or without a workspace): the files component's own search, asked as the
 * caller, not fused into the fragments (the scores are not on one scale, and paging stays the
 * fragments'). Only on the first page, without fragment-only filters; the best
 * FILE_HITS_BESIDE_SEARCH by the query's words, so one search asks the model for one query
 * vector (the fragments'), and a file shown holds the words searched. The query is read as the
 * fragments' (docs/search.md, "How a query is read"): in NFC, ranked by its positive words
 * (`rankingText`: no quotes, OR or excluded words), and no file holding an excluded word or
 * phrase. A caller who may not read files, a hosted zone, or a process without a files service
 * answering (a Leaf): no files, and the fragments as always. Each edge shapes the hits.
 */
export async function filesBesideSearch(
  client: ServiceClient,
  request: FilesBesideSearchRequest,
): Promise<FileSearchHit[]> {
  if (request.offset > 0 || request.fragmentFilters) return [];
  const read = readQuery(searchText(request.query));
  // A longer search query (up to SEARCH_QUERY_MAX characters) asks with its opening.
  const query = read.rankingText.trim().slice(0, FILE_SEARCH_QUERY_MAX_CHARS);
  // Nothing to rank by (a blank query, or exclusions alone), or an exclusion the files search
  // cannot take whole: showing files then could show one holding what the query keeps out.
  const exclude = read.exclusions;
  if (
    !query ||
    exclude.length > FILE_SEARCH_EXCLUSIONS_MAX ||
    exclude.some((e) => e.length > FILE_SEARCH_QUERY_MAX_CHARS)
  )
    return [];
  try {
    const { hits } =
      request.workspaceId === undefined
        ? await client.call(FilesService.method.globalSearchFiles, { query, exclude, limit: FILE_HITS_BESIDE_SEARCH })
        : await client.call(FilesService.method.searchFiles, {
            workspaceId: request.workspaceId,
            query,
            exclude,
            mode: 'keyword',
            limit: FILE_HITS_BESIDE_SEARCH,
            offset: 0,
          });
    return hits;
  } catch (err) {
    if (AppError.isAppError(err)) return [];
    throw err;
  }
}
