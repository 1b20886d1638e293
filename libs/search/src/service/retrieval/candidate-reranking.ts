import { Inject, Injectable, type Provider } from '@nestjs/common';
import { Histogram } from 'prom-client';
import { createReranker, type Reranker } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { Logger, PlatformMetrics } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER, METRICS } from '@kw/platform-runtime';
import { SearchRepository } from '../../persistence/search.repository.js';
import { SEARCH_QUERY_MODEL_CHARS } from '../../search-limits.js';
import type { FusedHit } from './rank-fusion.js';

export const RERANKER = Symbol('RERANKER');

/** SEARCH_RERANK_URL: an HTTP reranker; null when unset. */
export const rerankerProvider: Provider = {
  provide: RERANKER,
  useFactory: (config: AppConfig) =>
    createReranker({
      url: config.SEARCH_RERANK_URL,
      apiKey: config.SEARCH_RERANK_API_KEY,
      model: config.SEARCH_RERANK_MODEL,
      timeoutMs: config.SEARCH_RERANK_TIMEOUT_MS,
    }) ?? null,
  inject: [APP_CONFIG],
};

/** Characters of a fragment (title, then content) a reranker reads: its models read about 512 tokens. */
export const RERANK_DOCUMENT_CHARS = 2_000;
/** Orders remembered, so the pages of one search follow one order even if the reranker wavers. */
const REMEMBERED_ORDERS = 500;
const REMEMBER_MS = 5 * 60_000;
const DURATION_METRIC = 'kw_search_rerank_duration_seconds';

interface RememberedOrder {
  at: number;
  hits: FusedHit[];
}

/**
 * The second stage of hybrid search when SEARCH_RERANK_URL is set: the best SEARCH_RERANK_DEPTH
 * fused candidates are sent with the query to the reranker and take its order and scores
 * (`matchedBy` gains "rerank"); the rest follow in fused order. A reranker that fails or is late
 * costs nothing but the wait: the fused order answers, and a warning is logged (the query is
 * not). The order of a query's candidates is remembered for a while, so its pages agree.
 */
@Injectable()
export class CandidateReranking {
  private readonly depth: number;
  private readonly remembered = new Map<string, RememberedOrder>();
  /** Calls to the reranker by outcome (`ok`, `failed`): its latency is part of every hybrid search's. */
  private readonly calls: Histogram<'outcome'>;

  constructor(
    @Inject(RERANKER) private readonly reranker: Reranker | null,
    private readonly repository: SearchRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: PlatformMetrics,
  ) {
    this.depth = config.SEARCH_RERANK_DEPTH;
    this.calls =
      (metrics.registry.getSingleMetric(DURATION_METRIC) as Histogram<'outcome'> | undefined) ??
      new Histogram({
        name: DURATION_METRIC,
        help: 'Calls of hybrid search to the reranker (SEARCH_RERANK_URL), by outcome: ok, failed (fused order kept)',
        labelNames: ['outcome'],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [metrics.registry],
      });
  }

  get enabled(): boolean {
    return this.reranker !== null;
  }

  /** `ranked` with its head in the reranker's order, when a page within the head is asked for. */
  async rerank(workspaceIds: string[], query: string, ranked: FusedHit[], offset: number): Promise<FusedHit[]> {
    if (!this.reranker || ranked.length < 2 || offset >= this.depth) return ranked;
    const head = ranked.slice(0, this.depth);
    const key = `${query}\u0000${head.map((h) => h.fragmentId).join(',')}`;
    const now = Date.now();
    const known = this.remembered.get(key);
    if (known && now - known.at < REMEMBER_MS) return [...known.hits, ...ranked.slice(this.depth)];

    const texts = await this.repository.rerankTexts(
      workspaceIds,
      head.map((h) => h.fragmentId),
      RERANK_DOCUMENT_CHARS,
    );
    let order: FusedHit[];
    const timer = this.calls.startTimer();
    try {
      const ranking = await this.reranker.rerank(
        query.slice(0, SEARCH_QUERY_MODEL_CHARS),
        head.map((h) => texts.get(h.fragmentId) ?? ''),
      );
      order = ranking.map(({ index, score }) => ({
        fragmentId: head[index]!.fragmentId,
        score,
        matchedBy: [...head[index]!.matchedBy, 'rerank'],
      }));
      timer({ outcome: 'ok' });
    } catch (err) {
      timer({ outcome: 'failed' });
      this.logger.warn(
        { err: (err as Error).message, candidates: head.length },
        'search: reranker failed, fused order kept',
      );
      return ranked;
    }
    this.remember(key, { at: now, hits: order });
    return [...order, ...ranked.slice(this.depth)];
  }

  private remember(key: string, order: RememberedOrder): void {
    this.remembered.delete(key);
    this.remembered.set(key, order);
    for (const oldest of this.remembered.keys()) {
      if (this.remembered.size <= REMEMBERED_ORDERS) break;
      this.remembered.delete(oldest);
    }
  }
}
