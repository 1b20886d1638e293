import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flakyOpenAiServer } from '../enrichment/enrichment-fixture.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

/** Agentic search with a configured model (AI_PROVIDER=openai): the model widens the query; its failure is not fatal. */
describe('agentic search with a model', () => {
  let ai: Awaited<ReturnType<typeof flakyOpenAiServer>>;
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;

  const search = (query: string) =>
    p.api.call(owner.auth, 'POST', '/api/fragments/agentic-search', { workspaceId: ws.id, query });

  beforeAll(async () => {
    ai = await flakyOpenAiServer();
    ai.failing.on = false;
    p = await startFragmentsPlatform({ AI_PROVIDER: 'openai', AI_BASE_URL: ai.url, AI_API_KEY: 'k' });
    owner = await p.person();
    ws = await p.workspace(owner);
    const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: 'Work policy',
      content: 'Everyone may work remote on Fridays.',
      tags: ['policy'],
      summary: 'Policy.',
    });
    expect(res.status, res.text).toBe(201);
    // Embedded by the model before the tests turn it off (expect.poll is not available here).
    for (let i = 0; i < 300; i++) {
      const got = await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${res.body.fragment.id}`);
      if (got.body.fragment?.status === 'published') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
    await ai?.close();
  });

  it('adds the model’s keywords to the query’s and finds what they match', async () => {
    // The stub model answers every tag request with ["remote"].
    const res = await search('home office on fridays?');
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps[0]).toMatchObject({
      kind: 'expand',
      terms: ['home', 'office', 'fridays', 'remote'],
      detail: expect.stringContaining('openai model'),
    });
    expect(res.body.leads[0]).toMatchObject({ title: 'Work policy', why: expect.stringContaining('remote') });
  });

  it('falls back to the built-in keywords when the model fails', async () => {
    ai.failing.on = true;
    // Not the query above: its vector would be reused without asking the model.
    const res = await search('home office on fridays, please?');
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps[0]).toMatchObject({
      terms: ['home', 'office', 'fridays', 'please'],
      detail: expect.stringContaining('failed'),
    });
    expect(res.body.leads[0].title).toBe('Work policy');
    // Its search step ran on BM25 alone: the query could not be embedded. The lead holds only
    // "fridays" of the query's words, and its why names no other.
    expect(res.body.leads[0].why).toContain('keyword match (fridays)');
    expect(res.body.leads[0].why).not.toContain('meaning');
  });

  it('falls back within one model budget when the model hangs, well inside the service timeout', async () => {
    // Widening and the query's embedding share SEARCH_MODEL_TIMEOUT_MS (5 s): one after the
    // other at 5 s each they used up SERVICE_TIMEOUT_MS (10 s) and the client got a 504.
    ai.failing.on = false;
    ai.hanging.on = true;
    try {
      const started = Date.now();
      const res = await search('remote fridays while the model hangs');
      const took = Date.now() - started;
      expect(res.status, res.text).toBe(200);
      expect(res.body.steps[0].detail).toContain('failed');
      expect(res.body.leads[0]).toMatchObject({ title: 'Work policy', why: expect.stringContaining('keyword match') });
      expect(res.body.leads[0].why).not.toContain('meaning');
      expect(took).toBeLessThan(8_000);
    } finally {
      ai.hanging.on = false;
    }
  }, 20_000);

  it('answers hybrid search from its keyword side while the model is down, and semantic search with 502', async () => {
    ai.failing.on = true;
    const url = (mode: string) =>
      `/api/search?workspaceId=${ws.id}&q=${encodeURIComponent('remote work')}&mode=${mode}`;
    const hybrid = await p.api.call(owner.auth, 'GET', url('hybrid'));
    expect(hybrid.status, hybrid.text).toBe(200);
    expect(hybrid.body.results.map((r: any) => [r.title, r.matchedBy])).toEqual([['Work policy', ['keyword']]]);
    const semantic = await p.api.call(owner.auth, 'GET', url('semantic'));
    expect(semantic.status, semantic.text).toBe(502);
    expect(semantic.body).toMatchObject({ code: 'UPSTREAM_ERROR' });
    ai.failing.on = false;
    const back = await p.api.call(owner.auth, 'GET', url('hybrid'));
    expect(back.body.results[0].matchedBy).toEqual(['keyword', 'semantic']);
  });
});
