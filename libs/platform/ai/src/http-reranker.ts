import { RerankerError, type RerankedDocument, type Reranker, type RerankerSettings } from './reranker.js';

/**
 * A reranker speaking the rerank wire format that Cohere introduced and most others adopted
 * (Jina, Voyage, Mixedbread, vLLM, llama.cpp, Infinity): `POST <url>` with
 * `{model?, query, documents: string[], top_n}`, answered `{results: [{index, relevance_score}]}`
 * (Voyage says `data`; `score` is read too). The answer must score every document once.
 */
export class HttpReranker implements Reranker {
  readonly name = 'http';
  private readonly url: URL;

  constructor(private readonly settings: RerankerSettings & { url: string }) {
    this.url = new URL(settings.url);
  }

  async rerank(query: string, documents: string[]): Promise<RerankedDocument[]> {
    if (documents.length === 0) return [];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.settings.apiKey) headers['authorization'] = `Bearer ${this.settings.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          ...(this.settings.model ? { model: this.settings.model } : {}),
          query,
          documents,
          top_n: documents.length,
        }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      throw new RerankerError(
        timedOut ? `rerank: no answer within ${this.settings.timeoutMs} ms` : 'rerank: unreachable',
      );
    }
    // The provider's error text may echo the request (the key, the documents): only the status is kept.
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new RerankerError(`rerank: HTTP ${res.status}`, res.status);
    }
    const body: unknown = await res.json().catch(() => undefined);
    return readRanking(body, documents.length);
  }
}

/** The scores of an answer, best first; throws unless every document is scored exactly once. */
export function readRanking(body: unknown, count: number): RerankedDocument[] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const list = Array.isArray(body) ? body : Array.isArray(record['results']) ? record['results'] : record['data'];
  if (!Array.isArray(list)) throw new RerankerError('rerank: the answer holds no results');
  const seen = new Set<number>();
  const ranking = list.map((item: unknown): RerankedDocument => {
    const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const index = fields['index'];
    const score = fields['relevance_score'] ?? fields['score'];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || seen.has(index))
      throw new RerankerError('rerank: a result names no document, or one twice');
    if (typeof score !== 'number' || !Number.isFinite(score)) throw new RerankerError('rerank: a result has no score');
    seen.add(index);
    return { index, score };
  });
  if (seen.size !== count)
    throw new RerankerError(`rerank: ${count - seen.size} of ${count} documents were not scored`);
  return ranking.sort((a, b) => b.score - a.score || a.index - b.index);
}

/** The configured reranker, or undefined when SEARCH_RERANK_URL is unset. */
export function createReranker(settings: RerankerSettings): Reranker | undefined {
  if (!settings.url) return undefined;
  return new HttpReranker({ ...settings, url: settings.url });
}
