/** A candidate's relevance to the query as a reranker judges it: `index` into the documents sent. */
export interface RerankedDocument {
  index: number;
  score: number;
}

/**
 * A second-stage ranker (a cross-encoder behind an HTTP API): reads the query with each
 * candidate's text and scores how well the text answers it. Optional: search works without one.
 */
export interface Reranker {
  readonly name: string;
  /** Every document's relevance, best first. Rejects when the provider fails or answers nonsense. */
  rerank(query: string, documents: string[]): Promise<RerankedDocument[]>;
}

export interface RerankerSettings {
  /** SEARCH_RERANK_URL: the rerank endpoint itself (e.g. https://api.cohere.com/v2/rerank). Unset: no reranker. */
  url?: string;
  /** SEARCH_RERANK_API_KEY, sent as a bearer token. */
  apiKey?: string;
  /** SEARCH_RERANK_MODEL, sent as `model` when set. */
  model?: string;
  /** SEARCH_RERANK_TIMEOUT_MS: the deadline of one call. */
  timeoutMs: number;
}

/** The reranker failed; the message never holds the key or the provider's answer. */
export class RerankerError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RerankerError';
  }
}
