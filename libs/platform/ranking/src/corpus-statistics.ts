/** What BM25 needs of the searched documents as a whole (fragments, or file chunks). */
export interface CorpusStatistics {
  /** Documents in the searched scope. */
  documents: number;
  /** Their average length in BM25 tokens (at least 1). */
  averageLength: number;
}

/** Below this many documents the statistics are read fresh: the count costs less than a millisecond. */
const CACHED_FROM_DOCUMENTS = 1_000;
const TTL_MS = 30_000;
const MAX_ENTRIES = 1_000;

/**
 * The document count and average length BM25 needs, per searched scope (a set of workspaces).
 * Counting a large workspace on every query costs as much as the query itself (a scan of its
 * rows), and BM25 barely moves when a few documents of thousands change, so large scopes'
 * statistics are reused for TTL_MS; small ones (where every document matters, and tests look
 * closely) are always fresh. Document frequencies are never cached: they come with the query's
 * own rows. Workspace search keeps one for fragments, files search one for file chunks.
 */
export class CachedCorpusStatistics {
  private readonly entries = new Map<string, { at: number; statistics: CorpusStatistics }>();

  constructor(private readonly load: (scope: string[]) => Promise<CorpusStatistics>) {}

  async of(scope: string[]): Promise<CorpusStatistics> {
    const key = [...scope].sort().join(',');
    const cached = this.entries.get(key);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.statistics;
    const statistics = await this.load(scope);
    this.entries.delete(key);
    if (statistics.documents >= CACHED_FROM_DOCUMENTS) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { at: Date.now(), statistics });
    }
    return statistics;
  }
}
