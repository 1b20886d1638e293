import { Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { badRequest } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';
import {
  FILE_SEARCH_PAGE_DEFAULT,
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FILE_SEARCH_WORDS_MAX,
} from '../files-limits.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/**
 * How a file query is read: the file's name contains the query (case-insensitive), or its
 * extracted text holds any of the query's words (stemmed, stop words dropped). Name matches rank
 * first; content matches by how well the best chunk matches.
 */
@Injectable()
export class FileSearchHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
  ) {}

  @Handles(FilesService.method.searchFiles)
  async search(input: RequestOf<typeof FilesService, 'searchFiles'>, context: RequestContext) {
    const { workspaceId } = await this.records.authorizeWorkspace(context, input.workspaceId, 'files:read');
    // The upper bound is a contract limit (MESSAGE_LIMITS): the transport refuses a longer query
    // before this runs. Blank is this handler's to refuse.
    const query = input.query.trim();
    if (!query) {
      throw badRequest(`q must hold 1 to ${FILE_SEARCH_QUERY_MAX_CHARS} characters`, { field: 'q' });
    }
    const limit = input.limit || FILE_SEARCH_PAGE_DEFAULT;
    if (limit < 1 || limit > FILE_SEARCH_PAGE_MAX || input.offset < 0) {
      throw badRequest(`limit must be 1 to ${FILE_SEARCH_PAGE_MAX} and offset at least 0`, { field: 'limit' });
    }
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, FILE_SEARCH_WORDS_MAX);
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.files.search(workspaceId, words, pattern, limit, input.offset);
    const byId = new Map((await this.files.findManyWithAttachments(rows.map((r) => r.id))).map((f) => [f.id, f]));
    const hits = rows.flatMap((r) => {
      const file = byId.get(r.id);
      if (!file) return [];
      const matched = [r.name_match ? 'name' : '', r.content_match ? 'content' : ''].filter(Boolean).join(',');
      return [{ file: fileView(file), score: r.score, matched, snippet: r.snippet }];
    });
    return { hits, totalCount: rows[0]?.total ?? 0 };
  }
}
