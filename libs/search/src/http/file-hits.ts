import { FILE_HITS_BESIDE_SEARCH, FILE_SEARCH_QUERY_MAX_CHARS, FilesService } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import type { FileSearchHitDto } from './dto/search.dto.js';

export interface FileHitsRequest {
  workspaceId: string;
  query: string;
  offset: number;
  /** Filters only fragments have (types, tags, a collection): files cannot match them. */
  fragmentFilters: boolean;
}

/**
 * The files whose name or extracted text match a workspace search (the files component's own
 * search, asked as the caller), beside the fragment results rather than fused into them: their
 * scores are not on the same scale, and paging stays that of the fragments. Only on the first
 * page and without fragment-only filters. A process without the files component (a Leaf, whose
 * hosted zone has no files), a files service that does not answer, or a caller who may not read
 * files: no file hits, and the fragment results as always.
 */
export async function fileHits(client: ServiceClient, request: FileHitsRequest): Promise<FileSearchHitDto[]> {
  if (request.offset > 0 || request.fragmentFilters || !request.query.trim()) return [];
  try {
    const { hits } = await client.call(FilesService.method.searchFiles, {
      workspaceId: request.workspaceId,
      // A longer workspace search query (up to SEARCH_QUERY_MAX characters) asks with its opening.
      query: request.query.slice(0, FILE_SEARCH_QUERY_MAX_CHARS),
      limit: FILE_HITS_BESIDE_SEARCH,
      offset: 0,
      // By their words: a search asks the model for its query's vector once (the fragments'),
      // not once more for the files; and a file beside the results holds the words searched.
      mode: 'keyword',
    });
    return hits.map(({ file, score, matched, snippet, chunk }) => ({
      kind: 'file' as const,
      fileId: file!.id,
      workspaceId: file!.workspaceId,
      name: file!.name,
      mimeType: file!.mimeType,
      fileKind: file!.kind,
      snippet,
      score,
      matchedBy: matched.split(',').filter(Boolean),
      ...(chunk === undefined ? {} : { chunk }),
      fragmentIds: file!.fragmentIds,
      createdAt: file!.createdAt,
      updatedAt: file!.updatedAt,
    }));
  } catch (err) {
    // Refused (no files:read, a hosted zone), or no files service answering: no file hits.
    if (AppError.isAppError(err)) return [];
    throw err;
  }
}
