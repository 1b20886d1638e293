import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRerankStandIn, type RerankStandIn } from '../../support/stand-ins/rerank-stand-in.js';
import { untilPublished } from '../enrichment/enrichment-fixture.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

type Platform = Awaited<ReturnType<typeof startFragmentsPlatform>>;

/** Candidates reranked (SEARCH_RERANK_DEPTH): small, so the boundary is inside the results. */
const DEPTH = 4;
/** The word the stand-in's judge looks for: a fragment holding it is what the question wants. */
const ANSWER = 'compost';

/**
 * Hybrid search with a reranker (SEARCH_RERANK_URL) on the embedded platform: a stand-in
 * speaking Cohere's rerank format judges the candidates, and its order must reach the caller.
 */
describe('search reranking (embedded platform, a rerank stand-in)', () => {
  let p: Platform;
  let reranker: RerankStandIn;
  let owner: Person;
  let workspaceId: string;
  const titles = new Map<string, string>();

  const search = async (params: Record<string, string | number>) => {
    const qs = new URLSearchParams({
      workspaceId,
      ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
    });
    const res = await p.api.call(owner.auth, 'GET', `/api/search?${qs}`);
    expect(res.status, res.text).toBe(200);
    return res.body.results as { fragmentId: string; title: string; score: number; matchedBy: string[] }[];
  };
  const rerankCalls = () => reranker.documentsSent().length;

  beforeAll(async () => {
    reranker = await startRerankStandIn();
    // The judge: a document about compost answers the question; the rest do not.
    reranker.setScorer((_query, document) => (document.includes(ANSWER) ? 0.9 : 0.1));
    p = await startFragmentsPlatform({
      SEARCH_RERANK_URL: reranker.endpoint,
      SEARCH_RERANK_API_KEY: reranker.apiKey,
      SEARCH_RERANK_MODEL: 'rerank-test',
      SEARCH_RERANK_DEPTH: String(DEPTH),
      SEARCH_RERANK_TIMEOUT_MS: '1000',
      // The fused order is then BM25's (1..7 below), so what the reranker changes is plain to see.
      SEARCH_SEMANTIC_WEIGHT: '0',
    });
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
    await reranker?.close();
  });

  it("loads seven notes on one subject, and another tenant's", async () => {
    owner = await p.person();
    const ws = await p.workspace(owner);
    workspaceId = ws.id;
    // Seven notes on garden soil: "garden soil" fewer times in each, so BM25 orders them 1..7;
    // the third holds the answer.
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) {
      const content = `${'garden soil '.repeat(8 - i)}notes number ${i}, with ${i === 3 ? ANSWER : 'leaves'} from the kitchen.`;
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId,
        fragmentTypeId: ws.noteTypeId,
        title: `Soil note ${i}`,
        content,
      });
      expect(res.status, res.text).toBe(201);
      titles.set(res.body.fragment.id, `Soil note ${i}`);
      ids.push(res.body.fragment.id);
    }
    // Another tenant's notes on the same subject, holding the answer: never a candidate here.
    const stranger = await p.person();
    const foreign = await p.workspace(stranger);
    const res = await p.api.call(stranger.auth, 'POST', '/api/memory-fragments', {
      workspaceId: foreign.id,
      fragmentTypeId: foreign.noteTypeId,
      title: 'Foreign soil',
      content: `garden soil garden soil with ${ANSWER}, another tenant's secret`,
    });
    expect(res.status, res.text).toBe(201);
    for (const id of ids)
      await untilPublished(() => p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`), 60_000);
  }, 180_000);

  afterAll(async () => {
    await p?.stop();
    await reranker?.close();
  });

  it('answers in the fused order when the reranker fails, and says so in a warning without the key', async () => {
    reranker.setMode('status-500', { times: 1 });
    const fused = await search({ q: 'garden soil notes', limit: 20 });
    expect(fused.map((h) => h.title)).toEqual([
      'Soil note 1',
      'Soil note 2',
      'Soil note 3',
      'Soil note 4',
      'Soil note 5',
      'Soil note 6',
      'Soil note 7',
    ]);
    expect(fused.every((h) => !h.matchedBy.includes('rerank'))).toBe(true);
    // The log line travels on the process's stdout, not with the answer: it may arrive just after.
    await expect
      .poll(() => (p.platform.logs.find((l: any) => l.msg === 'search: reranker failed, fused order kept') as any)?.err)
      .toBe('rerank: HTTP 500');
    expect(JSON.stringify(p.platform.logs)).not.toContain(reranker.apiKey);

    reranker.setMode('hang', { times: 1 });
    const started = Date.now();
    const late = await search({ q: 'garden soil notes', limit: 20 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(late.map((h) => h.title)).toEqual(fused.map((h) => h.title));
  });

  it("reorders the best candidates by the reranker's judgement; the rest follow in fused order", async () => {
    const before = reranker.requests.length;
    const hits = await search({ q: 'garden soil notes', limit: 20 });
    // The head (notes 1-4) reranked: the answer first, then the others in fused order (equal scores).
    expect(hits.map((h) => h.title)).toEqual([
      'Soil note 3',
      'Soil note 1',
      'Soil note 2',
      'Soil note 4',
      'Soil note 5',
      'Soil note 6',
      'Soil note 7',
    ]);
    expect(hits[0]!.score).toBeCloseTo(0.9);
    expect(hits.slice(0, DEPTH).every((h) => h.matchedBy.at(-1) === 'rerank')).toBe(true);
    expect(hits.slice(DEPTH).some((h) => h.matchedBy.includes('rerank'))).toBe(false);

    expect(reranker.requests.length).toBe(before + 1);
    const sent = reranker.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${reranker.apiKey}`);
    expect(sent.body.model).toBe('rerank-test');
    expect(sent.body.query).toBe('garden soil notes');
    // What it reads of each candidate: the title, then the content.
    expect(sent.body.documents).toHaveLength(DEPTH);
    expect(sent.body.documents[0]).toMatch(/^Soil note 1\ngarden soil /);
  });

  it('pages through one order: pages inside the head reuse it, pages past it ask nothing', async () => {
    const whole = (await search({ q: 'garden soil notes', limit: 20 })).map((h) => h.fragmentId);
    const calls = rerankCalls();
    const paged: string[] = [];
    for (let offset = 0; offset < 7; offset += 2)
      paged.push(...(await search({ q: 'garden soil notes', limit: 2, offset })).map((h) => h.fragmentId));
    expect(paged).toEqual(whole);
    expect(rerankCalls()).toBe(calls);
    await search({ q: 'garden soil', limit: 2, offset: DEPTH });
    expect(rerankCalls()).toBe(calls);
  });

  it('leaves keyword and semantic mode to their retriever', async () => {
    const calls = rerankCalls();
    const keyword = await search({ q: 'garden soil notes', mode: 'keyword', limit: 20 });
    expect(keyword[0]!.title).toBe('Soil note 1');
    const semantic = await search({ q: 'garden soil notes', mode: 'semantic', limit: 20 });
    expect([...keyword, ...semantic].some((h) => h.matchedBy.includes('rerank'))).toBe(false);
    expect(rerankCalls()).toBe(calls);
  });

  it('counts its calls to the reranker by outcome in /metrics', async () => {
    const text = await (await fetch(`${p.platform.url}/metrics`)).text();
    const count = (outcome: string) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith('kw_search_rerank_duration_seconds_count{') && l.includes(`outcome="${outcome}"`));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    // The failure and the hang of the first test, then one successful call per distinct query.
    expect(count('failed')).toBe(2);
    expect(count('ok')).toBe(rerankCalls() - 2);
  });

  it("never shows the reranker another tenant's fragments", () => {
    const sent = reranker.documentsSent().flat();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.some((d) => d.includes("another tenant's secret"))).toBe(false);
    expect(sent.every((d) => [...titles.values()].some((t) => d.startsWith(`${t}\n`)))).toBe(true);
  });
});
