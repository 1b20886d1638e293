import { sendJson, startStandIn, type StandIn } from './stand-in-server.js';

/** How the stand-in judges a document: any number, higher is more relevant. */
export type RerankScorer = (query: string, document: string) => number;

export interface RerankStandIn extends StandIn {
  /** The endpoint a SEARCH_RERANK_URL points at (`…/v2/rerank`). */
  endpoint: string;
  apiKey: string;
  setScorer(scorer: RerankScorer): void;
  /** The documents of every rerank request, in the order received. */
  documentsSent(): string[][];
}

/** Share of the query's lower-case words that the document holds: a crude but deterministic judge. */
export const wordOverlap: RerankScorer = (query, document) => {
  const words = query.toLowerCase().match(/\p{L}+/gu) ?? [];
  const text = document.toLowerCase();
  return words.length === 0 ? 0 : words.filter((w) => text.includes(w)).length / words.length;
};

/**
 * A loopback stand-in for a rerank API in Cohere's wire format (`POST /v2/rerank` with
 * `{model, query, documents, top_n}`, answered `{results: [{index, relevance_score}]}`, best
 * first, top_n of them), for tests of the reranking step. A request without the bearer key is
 * answered 401, as the hosted APIs do. Failure modes of stand-in-server.ts: `status-500`, `hang`;
 * `malformed-stream` answers 200 with a result naming a document that was not sent.
 */
export async function startRerankStandIn(options: { apiKey?: string } = {}): Promise<RerankStandIn> {
  const apiKey = options.apiKey ?? 'rerank-stand-in-key-0123456789';
  let scorer: RerankScorer = wordOverlap;
  const standIn = await startStandIn('', ({ request, res, mode }) => {
    if (mode === 'hang') return;
    if (request.method !== 'POST' || request.path !== '/v2/rerank') return sendJson(res, 404, { message: 'not found' });
    if (request.headers.authorization !== `Bearer ${apiKey}`)
      return sendJson(res, 401, { message: 'invalid api token' });
    if (mode.startsWith('status-')) return sendJson(res, Number(mode.slice(7)), { message: `failed, key ${apiKey}` });
    const { query, documents, top_n: topN } = request.body ?? {};
    if (typeof query !== 'string' || !Array.isArray(documents))
      return sendJson(res, 400, { message: 'query and documents are required' });
    if (mode !== 'ok') return sendJson(res, 200, { results: [{ index: documents.length, relevance_score: 1 }] });
    const results = documents
      .map((document: string, index: number) => ({ index, relevance_score: scorer(query, document) }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, typeof topN === 'number' ? topN : documents.length);
    return sendJson(res, 200, {
      id: `rerank-${standIn.requests.length}`,
      results,
      meta: { billed_units: { search_units: 1 } },
    });
  });
  return Object.assign(standIn, {
    endpoint: `${standIn.url}/v2/rerank`,
    apiKey,
    setScorer(next: RerankScorer) {
      scorer = next;
    },
    documentsSent: () => standIn.requests.filter((r) => r.path === '/v2/rerank').map((r) => r.body?.documents ?? []),
  });
}
