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
  SEARCH_MODES,
  type SearchMode,
} from '../files-limits.js';
import { FileRanking } from './file-ranking.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/**
 * Files search (docs/files.md, "Search"): the query read (the name contains it, the text holds
 * any of its first 32 words, stemmed, stop words dropped; or a chunk is close to it in meaning),
 * the files ranked (FileRanking), and the page loaded with each file's snippet.
 */
@Injectable()
export class FileSearchHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly ranking: FileRanking,
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
    const mode = (input.mode || 'hybrid') as SearchMode;
    if (!SEARCH_MODES.includes(mode)) {
      throw badRequest(`mode must be one of ${SEARCH_MODES.join(', ')}`, { field: 'mode' });
    }
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, FILE_SEARCH_WORDS_MAX);
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const ranked = await this.ranking.rank(workspaceId, query, words.join(' '), pattern, mode);
    const page = ranked.slice(input.offset, input.offset + limit);
    const [files, snippets] = await Promise.all([
      this.files.findManyWithAttachments(page.map((r) => r.fileId)),
      this.files.snippets(
        words.join(' '),
        page.flatMap((r) => (r.chunk === undefined ? [] : [{ fileId: r.fileId, ordinal: r.chunk }])),
      ),
    ]);
    const byId = new Map(files.map((f) => [f.id, f]));
    const hits = page.flatMap((r) => {
      const file = byId.get(r.fileId);
      if (!file) return []; // deleted since it was ranked
      const snippet = r.chunk === undefined ? '' : (snippets.get(`${r.fileId}:${r.chunk}`) ?? '');
      return [{ file: fileView(file), score: r.score, matched: r.matched.join(','), snippet, chunk: r.chunk }];
    });
    return { hits, totalCount: ranked.length };
  }
}
