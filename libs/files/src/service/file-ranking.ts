import { Inject, Injectable } from '@nestjs/common';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { Logger } from '@kw/platform-observability';
import { CachedCorpusStatistics, fuseByWeightedScore, semanticWeight, type ScoredId } from '@kw/platform-ranking';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { FILE_MIN_SIMILARITY, FILE_NAME_MATCHES_MAX, FILE_RETRIEVAL_DEPTH, type SearchMode } from '../files-limits.js';
import { FilesRepository } from '../persistence/files.repository.js';
import { ChunkVectors } from './chunk-vectors.js';

/** A ranked file and the chunk its snippet shows. */
export interface RankedFile {
  fileId: string;
  score: number;
  matched: string[];
  chunk?: number;
}

/**
 * How files search orders a workspace's files for a query (docs/files.md, "Search"): name
 * matches first, then the files whose text holds the query's words (BM25 of the best chunk)
 * and those whose chunks are close in meaning to it, fused as workspace search fuses its two
 * lists, or one of the two alone in the keyword and semantic modes.
 */
@Injectable()
export class FileRanking {
  private readonly semanticWeight: number;
  private readonly modelTimeoutMs: number;
  /** When the last "query not embedded" warning was logged: one a minute tells an outage. */
  private warnedAt = 0;
  /** The workspace's chunk count and average length, for BM25 (reused for a while in large workspaces). */
  private readonly corpus: CachedCorpusStatistics;

  constructor(
    private readonly files: FilesRepository,
    private readonly vectors: ChunkVectors,
    @Inject(AI_PROVIDER) private readonly ai: AiProvider,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'SEARCH_SEMANTIC_WEIGHT' | 'SEARCH_MODEL_TIMEOUT_MS'>,
  ) {
    this.semanticWeight = semanticWeight(config.SEARCH_SEMANTIC_WEIGHT, ai.name);
    this.modelTimeoutMs = config.SEARCH_MODEL_TIMEOUT_MS;
    this.corpus = new CachedCorpusStatistics((workspaceIds) => files.corpusStatistics(workspaceIds));
  }

  /**
   * Every candidate in the workspaces, best first: name matches, then the text's rankings in the
   * mode's way. Meaning is searched in one workspace at a time (its vectors), so the hybrid and
   * semantic modes take one; by words, any number (a global search's files).
   */
  async rank(
    workspaceIds: readonly string[],
    query: string,
    words: string,
    pattern: string,
    mode: SearchMode,
  ): Promise<RankedFile[]> {
    const [names, keyword, semantic] = await Promise.all([
      this.files.nameMatches(workspaceIds, pattern, FILE_NAME_MATCHES_MAX),
      mode !== 'semantic' && words ? this.keywordCandidates(workspaceIds, words) : [],
      mode !== 'keyword' ? this.semanticCandidates(onlyOne(workspaceIds), query, mode) : [],
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

  private async keywordCandidates(workspaceIds: readonly string[], words: string) {
    if (workspaceIds.length === 0) return [];
    const corpus = await this.corpus.of([...workspaceIds]);
    if (corpus.documents === 0) return [];
    return this.files.keywordCandidates(workspaceIds, words, corpus, FILE_RETRIEVAL_DEPTH);
  }

  /**
   * Each file's chunk nearest in meaning to the query. A model that cannot embed the query
   * (down, or slower than SEARCH_MODEL_TIMEOUT_MS) leaves hybrid search to the words, as in
   * workspace search, and semantic search has nothing to answer with (502). A workspace whose
   * vectors are over FILES_VECTOR_MEMORY_MB: no semantic candidates.
   */
  private async semanticCandidates(workspaceId: string, query: string, mode: SearchMode) {
    let failure: Error | undefined;
    const embedQuery = async () => {
      try {
        const [vector] = await this.ai.embed([query], 'query', { timeoutMs: this.modelTimeoutMs });
        return vector && !vector.every((x) => x === 0) ? vector : undefined;
      } catch (err) {
        failure = err as Error;
        return undefined;
      }
    };
    const found = await this.vectors.nearest(workspaceId, embedQuery, {
      limit: FILE_RETRIEVAL_DEPTH,
      minSimilarity: FILE_MIN_SIMILARITY,
    });
    if (failure) {
      if (mode === 'semantic')
        throw new AppError({
          status: 502,
          code: ErrorCode.UPSTREAM_ERROR,
          message: 'The embedding model could not embed the query; keyword search still answers',
        });
      if (Date.now() - this.warnedAt >= 60_000) {
        this.logger.warn({ err: failure.message }, 'files search: query not embedded, words only');
        this.warnedAt = Date.now();
      }
      return [];
    }
    return (found ?? []).map((m) => ({ fileId: m.fileId, ordinal: m.ordinal, score: m.similarity }));
  }
}

function onlyOne(workspaceIds: readonly string[]): string {
  if (workspaceIds.length !== 1) throw new Error('files are searched by meaning in one workspace at a time');
  return workspaceIds[0]!;
}
