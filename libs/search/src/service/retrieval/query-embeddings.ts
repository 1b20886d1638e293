/** How many query vectors a process keeps (about 6 KB each at 1,536 dimensions). */
export const QUERY_EMBEDDINGS_KEPT = 256;
/** How long a query vector is reused. */
export const QUERY_EMBEDDING_TTL_MS = 10 * 60_000;

/**
 * The vectors of recent search queries, so that the next page of a query, an agentic search
 * after a search, or the same question asked again does not pay the model's round trip (and
 * its price) again. Least recently used first out; a failed embedding is never kept. A query
 * vector depends only on the text and the process's provider settings, so a process-wide cache
 * serves every workspace.
 */
export class QueryEmbeddings {
  private readonly kept = new Map<string, { vector: number[]; at: number }>();

  private readonly limit: number;
  private readonly ttlMs: number;
  /** Told where each vector came from: `reused`, `model`, or `failed` (the model threw). */
  private readonly observe: (outcome: 'reused' | 'model' | 'failed') => void;

  constructor(
    private readonly embed: (query: string, timeoutMs?: number) => Promise<number[] | undefined>,
    options: {
      limit?: number;
      ttlMs?: number;
      observe?: (outcome: 'reused' | 'model' | 'failed') => void;
    } = {},
  ) {
    this.limit = options.limit ?? QUERY_EMBEDDINGS_KEPT;
    this.ttlMs = options.ttlMs ?? QUERY_EMBEDDING_TTL_MS;
    this.observe = options.observe ?? (() => {});
  }

  /** `timeoutMs`: how long the model may take this time (a caller's remaining budget); the default when absent. */
  async of(query: string, now = Date.now(), timeoutMs?: number): Promise<number[] | undefined> {
    const known = this.kept.get(query);
    this.kept.delete(query);
    if (known && now - known.at < this.ttlMs) {
      this.kept.set(query, known); // most recently used last
      this.observe('reused');
      return known.vector;
    }
    let vector: number[] | undefined;
    try {
      vector = await this.embed(query, timeoutMs);
    } catch (err) {
      this.observe('failed');
      throw err;
    }
    this.observe('model');
    if (!vector) return vector;
    this.kept.set(query, { vector, at: now });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.limit) break;
      this.kept.delete(oldest);
    }
    return vector;
  }
}
