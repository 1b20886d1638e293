import { Inject, Injectable } from '@nestjs/common';
import type { SearchHit, SearchPage } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { Logger, PlatformMetrics } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER, METRICS } from '@kw/platform-runtime';
import { Counter } from 'prom-client';
import { SEARCH_QUERY_MODEL_CHARS } from '../../search-limits.js';
import { readQuery, relaxed, requiredPhrases, type ReadQuery } from '@kw/platform-query-reading';
import { SearchRepository, type RankedId } from '../../persistence/search.repository.js';
import { VECTOR_INDEX, type VectorIndex } from '../vector/vector-index.js';
import { CandidateReranking } from './candidate-reranking.js';
import { CorpusStatisticsCache } from './corpus-statistics-cache.js';
import { QueryEmbeddings } from './query-embeddings.js';
import { fuseByWeightedScore, semanticWeight, type FusedHit } from './rank-fusion.js';
import { MIN_SIMILARITY, RETRIEVAL_DEPTH, type SearchCriteria } from './search-query.js';

const QUERY_EMBEDDINGS_METRIC = 'kw_search_query_embeddings_total';

/** A hit and a page as the search contract carries them (plain objects, derived from proto/). */
export type SearchHitView = Omit<SearchHit, '$typeName' | '$unknown'>;
export type SearchPageView = Omit<SearchPage, '$typeName' | '$unknown' | 'hits'> & { hits: SearchHitView[] };

/**
 * The search use case over already-authorized workspaces: runs the keyword and/or vector
 * retriever, fuses (weighted score fusion in hybrid mode) and reranks when a reranker is
 * configured, pages the list and loads the page's fragments with a highlighted snippet. Every
 * SQL statement is scoped to the given workspaces and skips archived fragments.
 */
@Injectable()
export class FragmentSearch {
  constructor(
    private readonly repository: SearchRepository,
    private readonly corpus: CorpusStatisticsCache,
    private readonly reranking: CandidateReranking,
    @Inject(VECTOR_INDEX) private readonly vectors: VectorIndex,
    @Inject(AI_PROVIDER) ai: AiProvider,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: PlatformMetrics,
  ) {
    this.semanticWeight = semanticWeight(config.SEARCH_SEMANTIC_WEIGHT, ai.name);
    const outcomes =
      (metrics.registry.getSingleMetric(QUERY_EMBEDDINGS_METRIC) as Counter<'outcome'> | undefined) ??
      new Counter({
        name: QUERY_EMBEDDINGS_METRIC,
        help: "Search queries' vectors by where they came from: model (embedded now), reused (a recent query's), failed (the model failed or was late: hybrid answered from keywords, semantic with 502)",
        labelNames: ['outcome'],
        registers: [metrics.registry],
      });
    this.queryVectors = new QueryEmbeddings(
      async (text, timeoutMs = config.SEARCH_MODEL_TIMEOUT_MS) => {
        // A spent budget (agentic search's shared deadline) asks nothing: the keywords answer.
        if (timeoutMs <= 0) throw new Error('no time left for the model within the search deadline');
        const [vector] = await ai.embed([text], 'query', {
          timeoutMs: Math.min(timeoutMs, config.SEARCH_MODEL_TIMEOUT_MS),
        });
        return vector;
      },
      { observe: (outcome) => outcomes.inc({ outcome }) },
    );
  }

  /** When the last "query not embedded" warning was logged: one a minute tells an outage without flooding the log. */
  private warnedAt = 0;
  private unembedded = 0;

  private readonly queryVectors: QueryEmbeddings;

  /** The semantic retriever's share of hybrid search (the keyword retriever has the rest). */
  private readonly semanticWeight: number;

  async search(
    workspaceIds: string[],
    criteria: SearchCriteria,
    limit: number,
    offset: number,
  ): Promise<SearchPageView> {
    const query = readQuery(criteria.query);
    const ranked = await this.rank(workspaceIds, criteria, query, offset);
    const page = ranked.slice(offset, offset + limit);
    return {
      hits: await this.load(workspaceIds, query, page),
      totalCount: ranked.length,
      limit,
      offset,
      mode: criteria.mode,
    };
  }

  /**
   * Every candidate of the query, best first, without loading the fragments (agentic search
   * merges them with its other retrievals). `rerankFrom`: the page's offset, for the reranker.
   * `modelDeadline` (epoch ms): when the query's embedding must be done by, so a caller that
   * asked the model before (agentic search) keeps every model call within one budget; past it,
   * the query is not embedded and hybrid search answers from its keywords.
   */
  async rank(
    workspaceIds: string[],
    criteria: SearchCriteria,
    query = readQuery(criteria.query),
    rerankFrom = 0,
    modelDeadline?: number,
  ): Promise<FusedHit[]> {
    if (workspaceIds.length === 0 || criteria.query.trim() === '') return [];
    // The retrievers are independent: on a pooled database they run side by side.
    const [keyword, semantic] = await Promise.all([
      criteria.mode !== 'semantic' ? this.keywordCandidates(workspaceIds, query, criteria) : undefined,
      criteria.mode !== 'keyword' ? this.semanticCandidates(workspaceIds, criteria, query, modelDeadline) : undefined,
    ]);
    // Single modes answer with their retriever's own ranking; hybrid may be reranked.
    return criteria.mode === 'hybrid'
      ? await this.reranking.rerank(
          workspaceIds,
          query.modelText,
          withoutSemanticNoise(
            fuseByWeightedScore([
              { retriever: 'keyword', weight: 1 - this.semanticWeight, hits: keyword ?? [] },
              {
                retriever: 'semantic',
                weight: this.semanticWeight,
                hits: semantic ?? [],
                scale: 'range', // similarities sit in a band: see ScoreScale
              },
            ]),
          ),
          rerankFrom,
        )
      : single((criteria.mode === 'keyword' ? keyword : semantic) ?? [], criteria.mode);
  }

  private async keywordCandidates(
    workspaceIds: string[],
    query: ReadQuery,
    criteria: SearchCriteria,
  ): Promise<RankedId[]> {
    const corpus = await this.corpus.of(workspaceIds);
    if (corpus.documents === 0) return [];
    const found = await this.repository.keywordCandidates(workspaceIds, query, criteria, corpus, RETRIEVAL_DEPTH);
    if (found.length > 0 || !query.precise) return found;
    return this.repository.keywordCandidates(workspaceIds, relaxed(query), criteria, corpus, RETRIEVAL_DEPTH);
  }

  /**
   * Query embedding from the same provider that embedded the chunks (a recent query's vector
   * reused: QueryEmbeddings), then the vector index. The model reads the query without its
   * operators and excluded words (ReadQuery.modelText): an excluded word would count for the
   * fragments holding it. A
   * model that cannot embed the query (down, or slower than SEARCH_MODEL_TIMEOUT_MS) leaves hybrid search to its keyword
   * side, as a failing reranker leaves the fused order; semantic search has nothing to answer
   * with and says so (502).
   */
  private async semanticCandidates(
    workspaceIds: string[],
    criteria: SearchCriteria,
    query: ReadQuery,
    modelDeadline?: number,
  ): Promise<RankedId[]> {
    // Nothing but exclusions or operators: nothing to be close to.
    if (query.modelText.trim() === '') return [];
    let vector: number[] | undefined;
    try {
      // The model reads the opening: the vectors are kept by what it read, so queries that share it share one.
      vector = await this.queryVectors.of(
        query.modelText.slice(0, SEARCH_QUERY_MODEL_CHARS),
        Date.now(),
        modelDeadline === undefined ? undefined : modelDeadline - Date.now(),
      );
    } catch (err) {
      if (criteria.mode === 'semantic')
        throw new AppError({
          status: 502,
          code: ErrorCode.UPSTREAM_ERROR,
          message: 'The embedding model could not embed the query; keyword search still answers',
        });
      this.unembedded += 1;
      if (Date.now() - this.warnedAt >= 60_000) {
        this.logger.warn(
          { err: (err as Error).message, searches: this.unembedded },
          'search: queries not embedded, keyword results only',
        );
        this.warnedAt = Date.now();
        this.unembedded = 0;
      }
      return [];
    }
    if (!vector || vector.every((x) => x === 0)) return [];
    const hits = await this.vectors.nearest({
      workspaceIds,
      vector,
      limit: RETRIEVAL_DEPTH,
      minSimilarity: MIN_SIMILARITY,
    });
    const ranked = hits.map((h) => ({ fragmentId: h.fragmentId, score: h.similarity }));
    return this.applyFilters(workspaceIds, criteria, query, ranked);
  }

  /**
   * The vector index knows no types, tags or collections, nor words: keep the hits that pass the
   * filters and the query's syntax, in order. Exclusions always hold; a quoted phrase is required
   * (requiredPhrases: plain words are the model's business), unless none of the hits holds it:
   * then, as the keyword side relaxes syntax that matches nothing, the hits stand by meaning.
   */
  private async applyFilters(
    workspaceIds: string[],
    criteria: SearchCriteria,
    query: ReadQuery,
    ranked: RankedId[],
  ): Promise<RankedId[]> {
    const phrases = requiredPhrases(query);
    const filtered = criteria.types.length > 0 || criteria.tags.length > 0 || !!criteria.collectionId;
    if (ranked.length === 0 || (!filtered && query.exclusions.length === 0 && !phrases)) return ranked;
    const kept = await this.repository.matching(
      workspaceIds,
      ranked.map((r) => r.fragmentId),
      criteria,
      query.exclusions,
      phrases,
    );
    const holding = ranked.filter((r) => kept.get(r.fragmentId) === true);
    return phrases && holding.length === 0 ? ranked.filter((r) => kept.has(r.fragmentId)) : holding;
  }

  private async load(workspaceIds: string[], query: ReadQuery, page: FusedHit[]): Promise<SearchHitView[]> {
    if (page.length === 0) return [];
    const rows = await this.repository.hits(
      workspaceIds,
      query,
      page.map((h) => h.fragmentId),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return page.flatMap((hit) => {
      const row = byId.get(hit.fragmentId);
      if (!row) return [];
      return [
        {
          fragmentId: row.id,
          workspaceId: row.workspace_id,
          title: row.title,
          type: row.type,
          tags: row.tags,
          snippet: row.snippet,
          score: hit.score,
          matchedBy: hit.matchedBy,
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
        },
      ];
    });
  }
}

/**
 * Hybrid's fusion without the semantic-only candidates it scores 0: the similarities are scaled
 * over their list's range, so the list's worst candidate adds nothing; alone it is noise that
 * would lengthen `total` and the last page (docs/search.md, "Hybrid").
 */
function withoutSemanticNoise(fused: FusedHit[]): FusedHit[] {
  return fused.filter((h) => h.score > 0 || h.matchedBy.some((retriever) => retriever !== 'semantic'));
}

function single(list: RankedId[], retriever: string): FusedHit[] {
  return list.map((r) => ({ fragmentId: r.fragmentId, score: r.score, matchedBy: [retriever] }));
}
