import { Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { invalidField } from '@kw/platform-errors';
import { searchText } from '@kw/platform-query-reading';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { FilesRepository } from '../persistence/files.repository.js';
import {
  FILE_SEARCH_PAGE_DEFAULT,
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FILE_SEARCH_WORDS_MAX,
  SEARCH_MODES,
  type SearchMode,
} from '../files-limits.js';
import { FileRanking, type RankedFile } from './file-ranking.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/**
 * Files search (docs/files.md, "Search"): the query read (the name contains it, the text holds
 * any of its first 32 words, stemmed, stop words dropped; or a chunk is close to it in meaning),
 * the files ranked (FileRanking), those holding an excluded word or phrase dropped, and the
 * page loaded with each file's snippet.
 */
@Injectable()
export class FileSearchHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly ranking: FileRanking,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FilesService.method.searchFiles)
  async search(input: RequestOf<typeof FilesService, 'searchFiles'>, context: RequestContext) {
    const { workspaceId } = await this.records.authorizeWorkspace(context, input.workspaceId, 'files:read');
    const query = queryOf(input.query);
    const limit = input.limit || FILE_SEARCH_PAGE_DEFAULT;
    if (limit < 1 || limit > FILE_SEARCH_PAGE_MAX || input.offset < 0) {
      throw invalidField(
        input.offset < 0 ? 'offset' : 'limit',
        input.offset < 0 ? 'must be at least 0' : `must be 1 to ${FILE_SEARCH_PAGE_MAX}`,
      );
    }
    const mode = (input.mode || 'hybrid') as SearchMode;
    if (!SEARCH_MODES.includes(mode)) {
      throw invalidField('mode', `must be one of ${SEARCH_MODES.join(', ')}`);
    }
    const ranked = await this.withoutExcluded(
      await this.ranking.rank([workspaceId], query.text, query.words, query.pattern, mode),
      exclusionsOf(input.exclude),
    );
    return {
      hits: await this.hitsOf(ranked.slice(input.offset, input.offset + limit), query.words),
      totalCount: ranked.length,
    };
  }

  /**
   * The files beside a global search: by words (as `search` in keyword mode) over every Cloud
   * workspace the caller may read files of, picked by the gate as global search picks its own
   * (archived ones and those in a hosted zone left out).
   */
  @Handles(FilesService.method.globalSearchFiles)
  async globalSearch(input: RequestOf<typeof FilesService, 'globalSearchFiles'>, context: RequestContext) {
    const query = queryOf(input.query);
    const limit = input.limit || FILE_SEARCH_PAGE_DEFAULT;
    if (limit < 1 || limit > FILE_SEARCH_PAGE_MAX) {
      throw invalidField('limit', `must be 1 to ${FILE_SEARCH_PAGE_MAX}`);
    }
    const { workspaceIds: readable } = await this.gate.readableWorkspaces(context, 'files:read');
    if (readable.length === 0) return { hits: [], totalCount: 0 };
    const ranked = await this.withoutExcluded(
      await this.ranking.rank(readable, query.text, query.words, query.pattern, 'keyword'),
      exclusionsOf(input.exclude),
    );
    return { hits: await this.hitsOf(ranked.slice(0, limit), query.words), totalCount: ranked.length };
  }

  /** The ranked files but those holding an excluded word or phrase, in every mode (docs/files.md, "Search"). */
  private async withoutExcluded(ranked: RankedFile[], exclusions: string[]): Promise<RankedFile[]> {
    if (exclusions.length === 0) return ranked;
    const excluded = await this.files.holdingAny(
      ranked.map((r) => r.fileId),
      exclusions,
    );
    return excluded.size === 0 ? ranked : ranked.filter((r) => !excluded.has(r.fileId));
  }

  /** The page's files, each with its snippet; a file deleted since it was ranked is left out. */
  private async hitsOf(page: RankedFile[], words: string) {
    const [files, snippets] = await Promise.all([
      this.files.findManyWithAttachments(page.map((r) => r.fileId)),
      this.files.snippets(
        words,
        page.flatMap((r) => (r.chunk === undefined ? [] : [{ fileId: r.fileId, ordinal: r.chunk }])),
      ),
    ]);
    const byId = new Map(files.map((f) => [f.id, f]));
    return page.flatMap((r) => {
      const file = byId.get(r.fileId);
      if (!file) return [];
      const snippet = r.chunk === undefined ? '' : (snippets.get(`${r.fileId}:${r.chunk}`) ?? '');
      return [{ file: fileView(file), score: r.score, matched: r.matched.join(','), snippet, chunk: r.chunk }];
    });
  }
}

/**
 * How a files search reads its query: in Unicode NFC, as workspace search reads its own and as
 * processing stores the extracted text (a decomposed `é` is the composed one); the name contains
 * it (an escaped ILIKE pattern), the text holds any of its first FILE_SEARCH_WORDS_MAX words.
 * The upper bound is a contract limit (MESSAGE_LIMITS): the transport refuses a longer query
 * before a handler runs; blank is refused here.
 */
function queryOf(raw: string): { text: string; words: string; pattern: string } {
  const text = searchText(raw).trim();
  if (!text) throw invalidField('q', `must hold 1 to ${FILE_SEARCH_QUERY_MAX_CHARS} characters, not only white space`);
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, FILE_SEARCH_WORDS_MAX);
  return { text, words: words.join(' '), pattern: `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
}

/** The excluded words and phrases as the text is read (NFC), blank ones dropped (the contract bounds them). */
function exclusionsOf(exclude: readonly string[]): string[] {
  return [...new Set(exclude.map((e) => searchText(e).trim()).filter((e) => e !== ''))];
}
