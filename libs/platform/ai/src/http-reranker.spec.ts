import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRerankStandIn, type RerankStandIn } from '../../../../test/support/stand-ins/rerank-stand-in.js';
import { createReranker, HttpReranker, readRanking } from './http-reranker.js';
import { RerankerError } from './reranker.js';

describe('HttpReranker (Cohere rerank wire format, against a stand-in)', () => {
  let standIn: RerankStandIn;
  let reranker: HttpReranker;
  const documents = ['coffee brewing at home', 'vitamin D and fracture risk in older adults', 'vitamin C'];

  beforeAll(async () => {
    standIn = await startRerankStandIn();
    reranker = new HttpReranker({
      url: standIn.endpoint,
      apiKey: standIn.apiKey,
      model: 'rerank-v3.5',
      timeoutMs: 500,
    });
  });
  afterAll(() => standIn.close());
  beforeEach(() => standIn.setMode('ok'));

  it('sends the query and every document with the key and model, and reads the scores best first', async () => {
    const ranking = await reranker.rerank('vitamin D fracture', documents);
    expect(ranking.map((r) => r.index)).toEqual([1, 2, 0]);
    expect(ranking[0]!.score).toBeCloseTo(1);
    const sent = standIn.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${standIn.apiKey}`);
    expect(sent.body).toEqual({ model: 'rerank-v3.5', query: 'vitamin D fracture', documents, top_n: 3 });
  });

  it('sends no model when none is configured, and nothing at all for no documents', async () => {
    const plain = new HttpReranker({ url: standIn.endpoint, apiKey: standIn.apiKey, timeoutMs: 500 });
    await plain.rerank('coffee', documents);
    expect(standIn.requests.at(-1)!.body).not.toHaveProperty('model');
    const before = standIn.requests.length;
    expect(await plain.rerank('coffee', [])).toEqual([]);
    expect(standIn.requests.length).toBe(before);
  });

  it('fails with the status only: never the key or the answer text (which may echo it)', async () => {
    standIn.setMode('status-500', { times: 1 });
    const err = await reranker.rerank('coffee', documents).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RerankerError);
    expect((err as RerankerError).status).toBe(500);
    expect((err as Error).message).toBe('rerank: HTTP 500');
    const wrongKey = new HttpReranker({ url: standIn.endpoint, apiKey: 'not-the-key', timeoutMs: 500 });
    await expect(wrongKey.rerank('coffee', documents)).rejects.toMatchObject({ status: 401 });
  });

  it('gives up at its deadline', async () => {
    standIn.setMode('hang', { times: 1 });
    const started = Date.now();
    await expect(reranker.rerank('coffee', documents)).rejects.toThrow('rerank: no answer within 500 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses an answer that scores a document that was not sent', async () => {
    standIn.setMode('malformed-stream', { times: 1 });
    await expect(reranker.rerank('coffee', documents)).rejects.toThrow(/names no document/);
  });

  it('is made only when SEARCH_RERANK_URL is set', () => {
    expect(createReranker({ timeoutMs: 1_000 })).toBeUndefined();
    expect(createReranker({ url: standIn.endpoint, timeoutMs: 1_000 })).toBeInstanceOf(HttpReranker);
  });
});

describe('readRanking (the answer shapes of rerank APIs)', () => {
  it('reads Cohere and Jina `results`, Voyage `data`, and bare arrays with `score`', () => {
    const cohere = {
      results: [
        { index: 1, relevance_score: 0.9 },
        { index: 0, relevance_score: 0.1 },
      ],
    };
    const voyage = {
      data: [
        { index: 0, relevance_score: 0.2 },
        { index: 1, relevance_score: 0.7 },
      ],
    };
    const bare = [
      { index: 0, score: 3 },
      { index: 1, score: 5 },
    ];
    for (const body of [cohere, voyage, bare]) expect(readRanking(body, 2).map((r) => r.index)).toEqual([1, 0]);
  });

  it('breaks equal scores by the order the documents were sent', () => {
    expect(
      readRanking(
        {
          results: [
            { index: 1, relevance_score: 0.5 },
            { index: 0, relevance_score: 0.5 },
          ],
        },
        2,
      ),
    ).toEqual([
      { index: 0, score: 0.5 },
      { index: 1, score: 0.5 },
    ]);
  });

  it('refuses missing, repeated, out-of-range or unscored documents', () => {
    expect(() => readRanking({}, 1)).toThrow('holds no results');
    expect(() => readRanking({ results: [{ index: 0, relevance_score: 1 }] }, 2)).toThrow('1 of 2 documents');
    expect(() =>
      readRanking(
        {
          results: [
            { index: 0, relevance_score: 1 },
            { index: 0, relevance_score: 1 },
          ],
        },
        2,
      ),
    ).toThrow('names no document');
    expect(() => readRanking({ results: [{ index: 2, relevance_score: 1 }] }, 2)).toThrow('names no document');
    expect(() => readRanking({ results: [{ index: 0, relevance_score: 'high' }] }, 1)).toThrow('has no score');
  });
});
