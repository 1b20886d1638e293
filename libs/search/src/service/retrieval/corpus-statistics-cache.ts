import { Injectable } from '@nestjs/common';
import type { CorpusStatistics } from '../../domain/keyword-ranking.js';
import { SearchRepository } from '../../persistence/search.repository.js';

/** Below this many fragments the statistics are read fresh: the count costs less than a millisecond. */
const CACHED_FROM_DOCUMENTS = 1_000;
const TTL_MS = 30_000;
const MAX_ENTRIES = 1_000;

/**
 * The fragment count and average length BM25 needs, per set of searched workspaces. Counting a
 * large workspace on every query would cost as much as the query itself, and BM25 barely moves
 * when a few fragments of thousands change, so large workspaces' statistics are reused for
 * TTL_MS; small ones (where every fragment matters, and tests look closely) are always fresh.
 * Document frequencies are never cached: they come with the query's own rows.
 */
@Injectable()
export class CorpusStatisticsCache {
  private readonly entries = new Map<string, { at: number; statistics: CorpusStatistics }>();

  constructor(private readonly repository: SearchRepository) {}

  async of(workspaceIds: string[]): Promise<CorpusStatistics> {
    const key = [...workspaceIds].sort().join(',');
    const cached = this.entries.get(key);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.statistics;
    const statistics = await this.repository.corpusStatistics(workspaceIds);
    this.entries.delete(key);
    if (statistics.documents >= CACHED_FROM_DOCUMENTS) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { at: Date.now(), statistics });
    }
    return statistics;
  }
}
