import { Inject, Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, badRequest, ErrorCode } from '@kw/platform-errors';
import type { Logger } from '@kw/platform-observability';
import { fuseByWeightedScore, semanticWeight, type ScoredId } from '@kw/platform-ranking';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';
import {
  FILE_MIN_SIMILARITY,
  FILE_NAME_MATCHES_MAX,
  FILE_RETRIEVAL_DEPTH,
  FILE_SEARCH_PAGE_DEFAULT,
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FILE_SEARCH_WORDS_MAX,
  SEARCH_MODES,
  type SearchMode,
} from '../files-limits.js';
import { ChunkVectors } from './chunk-vectors.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/** A ranked file and the chunk its snippet shows. */
interface RankedFile {
  fileId: string;
  score: number;
  matched: string[];
  chunk?: number;
}

/**
 * How a file query is read (docs/files.md, "Search"): the file's name contains the query
 * (case-insensitive), its extracted text holds any of the query's first 32 words (stemmed, stop
 * words dropped; ranked by the Okapi BM25 score of its best chunk), or a chunk of it is close in
 * meaning to the query (the chunk vectors processing stored). Name matches come first; the rest
 * by the two text rankings fused as workspace search fuses them, or by one of them in the
 * keyword and semantic modes.
 */
@Injectable()
export class FileSearchHandlers {
  private readonly semanticWeight: number;
  private readonly modelTimeoutMs: number;
  /** When the last "query not embedded" warning was logged: one a minute tells an outage. */
  private warnedAt = 0;

  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly vectors: ChunkVectors,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'SEARCH_SEMANTIC_WEIGHT' | 'SEARCH_MODEL_TIMEOUT_MS'>,
  ) {
    this.semanticWeight = semanticWeight(config.SEARCH_SEMANTIC_WEIGHT, ai.name);
    this.modelTimeoutMs = config.SEARCH_MODEL_TIMEOUT_MS;
  }

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
    const ranked = await this.rank(workspaceId, query, words.join(' '), pattern, mode);
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
      return [{ file: fileView(file), score: r.score, matched: r.matched.join(','), snippet }];
    });
    return { hits, totalCount: ranked.length };
  }

  /** Every candidate, best first: name matches, then the text's rankings in the mode's way. */
  private async rank(
    workspaceId: string,
    query: string,
    words: string,
    pattern: string,
    mode: SearchMode,
  ): Promise<RankedFile[]> {
    const [names, keyword, semantic] = await Promise.all([
      this.files.nameMatches(workspaceId, pattern, FILE_NAME_MATCHES_MAX),
      mode !== 'semantic' && words ? this.files.keywordCandidates(workspaceId, words, FILE_RETRIEVAL_DEPTH) : [],
      mode !== 'keyword' ? this.semanticCandidates(workspaceId, query, mode) : [],
    ]);
    const chunkOf = new Map<string, number>();
    // The snippet shows the chunk with the query's words, else the one nearest in meaning.
    for (const hit of [...semantic, ...keyword]) chunkOf.set(hit.fileId, hit.ordinal);
    const asIds = (hits: { fileId: string; score: number }[]): ScoredId[] =>
      hits.map((h) => ({ id: h.fileId, score: h.score }));
    const fused =
      mode === 'hybrid'
        ? fuseByWeightedScore([
            { retriever: 'content', weight: 1 - this.semanticWeight, hits: asIds(keyword) },
            { retriever: 'semantic', weight: this.semanticWeight, hits: asIds(semantic), scale: 'range' },
          ])
        : // A single mode answers with its retriever's own ranking and scores (BM25 or cosine).
          asIds(mode === 'keyword' ? keyword : semantic).map((hit) => ({
            ...hit,
            matchedBy: [mode === 'keyword' ? 'content' : 'semantic'],
          }));
    const text = new Map(fused.map((hit) => [hit.id, hit]));
    const named = new Set(names);
    const first: RankedFile[] = names
      .map((fileId) => ({
        fileId,
        score: text.get(fileId)?.score ?? 0,
        matched: ['name', ...(text.get(fileId)?.matchedBy ?? [])],
        chunk: chunkOf.get(fileId),
      }))
      .sort((a, b) => b.score - a.score || (a.fileId < b.fileId ? -1 : 1));
    const rest = fused
      .filter((hit) => !named.has(hit.id))
      .map((hit) => ({ fileId: hit.id, score: hit.score, matched: hit.matchedBy, chunk: chunkOf.get(hit.id) }));
    return [...first, ...rest];
  }

  /**
   * Each file's chunk nearest in meaning to the query. A model that cannot embed the query
   * (down, or slower than SEARCH_MODEL_TIMEOUT_MS) leaves hybrid search to the words, as in
   * workspace search, and semantic search has nothing to answer with (502). A workspace whose
   * vectors are over FILES_VECTOR_MEMORY_MB: no semantic candidates.
   */
  private async semanticCandidates(workspaceId: string, query: string, mode: SearchMode) {
    let vector: number[] | undefined;
    try {
      [vector] = await this.ai.embed([query], 'query', { timeoutMs: this.modelTimeoutMs });
    } catch (err) {
      if (mode === 'semantic')
        throw new AppError({
          status: 502,
          code: ErrorCode.UPSTREAM_ERROR,
          message: 'The embedding model could not embed the query; keyword search still answers',
        });
      if (Date.now() - this.warnedAt >= 60_000) {
        this.logger.warn({ err: (err as Error).message }, 'files search: query not embedded, words only');
        this.warnedAt = Date.now();
      }
      return [];
    }
    if (!vector || vector.every((x) => x === 0)) return [];
    const found = await this.vectors.nearest(workspaceId, vector, {
      limit: FILE_RETRIEVAL_DEPTH,
      minSimilarity: FILE_MIN_SIMILARITY,
    });
    return (found ?? []).map((m) => ({ fileId: m.fileId, ordinal: m.ordinal, score: m.similarity }));
  }
}
