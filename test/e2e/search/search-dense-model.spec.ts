import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiStandIn, type StandIn } from '../../support/stand-ins/openai-stand-in.js';
import { untilPublished } from '../enrichment/enrichment-fixture.js';
import { startFilesPlatform } from '../files/files-fixture.js';
import type { Person } from '../fragments/fragments-fixture.js';

type Hit = { fragmentId: string; title: string; score: number; matchedBy: string[] };

/**
 * Hybrid search with an embedding model behind the OpenAI-compatible provider. The stand-in's
 * vectors have only positive components, so every cosine sits in a narrow high band, as a real
 * model's do: the semantic list is scaled over its range (its worst candidate adds nothing), not
 * divided by its best (where being last of the list would still earn nearly the full share).
 */
describe('hybrid search with a dense embedding model (embedded platform, OpenAI stand-in)', () => {
  let openai: StandIn;
  let p: Awaited<ReturnType<typeof startFilesPlatform>>;
  let owner: Person;
  let workspaceId: string;

  const search = async (q: string, mode = 'hybrid') => {
    const qs = new URLSearchParams({ workspaceId, q, mode });
    const res = await p.api.call(owner.auth, 'GET', `/api/search?${qs}`);
    expect(res.status, res.text).toBe(200);
    return res.body.results as Hit[];
  };

  beforeAll(async () => {
    openai = await startOpenAiStandIn();
    // A model trained with markers (nomic-embed-text): queries and documents are marked apart.
    p = await startFilesPlatform({
      AI_PROVIDER: 'openai',
      AI_BASE_URL: openai.url,
      AI_API_KEY: 'k',
      AI_EMBEDDING_MODEL: 'nomic-ai/nomic-embed-text-v1.5',
      SEARCH_MODEL_TIMEOUT_MS: '1000',
    });
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
    await openai?.close();
  });

  it('loads three notes, published (embedded by the model)', async () => {
    owner = await p.person();
    const ws = await p.workspace(owner);
    workspaceId = ws.id;
    for (const [title, content] of [
      ['Compost heap', 'Turn the compost heap weekly; compost needs air.'],
      ['Tax return', 'File the quarterly tax return before the deadline.'],
      ['Bicycle repair', 'Patch the inner tube, then pump the tyre to pressure.'],
    ]) {
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId,
        fragmentTypeId: ws.noteTypeId,
        title,
        content,
      });
      expect(res.status, res.text).toBe(201);
      await untilPublished(
        () => p.api.call(owner.auth, 'GET', `/api/memory-fragments/${res.body.fragment.id}`),
        60_000,
      );
    }
  }, 120_000);

  it("embeds the notes and the query with the model's markers for each", async () => {
    const inputs = () =>
      openai.requests.filter((r) => r.path === '/v1/embeddings').flatMap((r) => r.body.input as string[]);
    expect(inputs()).toContain('search_document: Compost heap\n\nTurn the compost heap weekly; compost needs air.');
    expect(inputs().every((text) => text.startsWith('search_document: '))).toBe(true);
    await search('compost heap', 'semantic');
    expect(inputs().at(-1)).toBe('search_query: compost heap');
    // The next page of the query, or the query again, reuses its vector.
    await search('compost heap', 'hybrid');
    expect(inputs().filter((text) => text === 'search_query: compost heap')).toHaveLength(1);
  });

  it("gives the model a long query's opening: 2,000 characters, whatever the query's length", async () => {
    const inputs = () =>
      openai.requests.filter((r) => r.path === '/v1/embeddings').flatMap((r) => r.body.input as string[]);
    const page = `How often should the compost heap be turned? ${'Air keeps a heap working, and turning lets it in. '.repeat(150)}`;
    expect(page.length).toBeGreaterThan(7_000);
    expect((await search(page.slice(0, 8_000), 'semantic'))[0]?.title).toBe('Compost heap');
    expect(inputs().at(-1)).toBe(`search_query: ${page.slice(0, 2_000)}`);
  });

  it('the model puts every note in a narrow band of similarity', async () => {
    const semantic = await search('compost heap', 'semantic');
    expect(semantic).toHaveLength(3);
    const scores = semantic.map((h) => h.score);
    expect(Math.min(...scores)).toBeGreaterThan(0.5);
    expect(Math.max(...scores) - Math.min(...scores)).toBeLessThan(0.5);
  });

  it("scales the model's similarities over their range: its first candidate adds the full share, its last nothing (and is left out)", async () => {
    const semantic = await search('tax return', 'semantic');
    // The stand-in's order (its vectors fold character codes): not the one a reader would choose.
    expect(semantic.map((h) => h.title)).toEqual(['Bicycle repair', 'Tax return', 'Compost heap']);
    const [best, tax, worst] = semantic.map((h) => h.score) as [number, number, number];
    const hybrid = await search('tax return');
    // Semantic weight 0.4 by default for a model; only the tax note holds the words.
    // The last candidate earns 0 (divided by the best, it would still have earned 0.4 x 0.99), and
    // a hit only the model found that earns 0 is left out (docs/search.md, Hybrid).
    expect(hybrid.map((h) => [h.title, h.matchedBy])).toEqual([
      ['Tax return', ['keyword', 'semantic']],
      ['Bicycle repair', ['semantic']],
    ]);
    expect(hybrid[0]!.score).toBeCloseTo(0.6 + (0.4 * (tax - worst)) / (best - worst), 9);
    expect(hybrid[1]!.score).toBeCloseTo(0.4, 9);
  });

  it('answers from the keyword side when the model does not answer in time', async () => {
    openai.setMode('hang');
    try {
      const abandoned = openai.aborted();
      // SEARCH_MODEL_TIMEOUT_MS is 1 s here; with enrichment's AI_TIMEOUT_MS (60 s) this
      // test would run out of time.
      // A query not asked before: a recent query's vector would be reused without asking the model.
      const hybrid = await search('quarterly tax');
      await expect.poll(() => openai.aborted()).toBe(abandoned + 1);
      expect(hybrid.map((h) => [h.title, h.matchedBy])).toEqual([['Tax return', ['keyword']]]);
      const qs = new URLSearchParams({ workspaceId, q: 'quarterly tax', mode: 'semantic' });
      const semantic = await p.api.call(owner.auth, 'GET', `/api/search?${qs}`);
      expect(semantic.status, semantic.text).toBe(502);
      expect(semantic.body.code).toBe('UPSTREAM_ERROR');
      // Operators see it: vectors by where they came from (the model, reused, failed).
      const metrics = await (await fetch(`${p.platform.url}/metrics`)).text();
      expect(metrics).toMatch(/kw_search_query_embeddings_total\{outcome="failed"[^}]*\} 2\n/);
      expect(metrics).toMatch(/kw_search_query_embeddings_total\{outcome="reused"[^}]*\} [1-9]/);
      // Agentic search's two model calls (to widen the query, to embed it) share one
      // SEARCH_MODEL_TIMEOUT_MS: the widening used it up, so the query is not embedded at all
      // and BM25 answers (docs/search-listing-and-graph.md). One call abandoned, not two.
      const before = openai.aborted();
      const agentic = await p.api.call(owner.auth, 'POST', '/api/fragments/agentic-search', {
        workspaceId,
        query: 'quarterly deadline',
      });
      expect(agentic.status, agentic.text).toBe(200);
      expect(agentic.body.steps[0].detail).toContain('failed');
      expect(agentic.body.leads[0]).toMatchObject({ title: 'Tax return', why: 'keyword match (quarterly, deadline)' });
      await expect.poll(() => openai.aborted()).toBe(before + 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(openai.aborted()).toBe(before + 1);
    } finally {
      openai.setMode('ok');
    }
  });

  it('ranks files by the model too, and by their words when the model does not answer in time', async () => {
    const files = (q: string, mode: string) =>
      p.api.call(owner.auth, 'GET', `/api/files/search?${new URLSearchParams({ workspaceId, q, mode })}`);
    const queries = () =>
      openai.requests
        .filter((r) => r.path === '/v1/embeddings')
        .flatMap((r) => r.body.input as string[])
        .filter((text) => text === 'search_query: turning a heap');
    // No file yet: nothing to compare, and no model call spent on the query.
    const none = await files('turning a heap', 'semantic');
    expect(none.status, none.text).toBe(200);
    expect(none.body.items).toEqual([]);
    expect(queries()).toHaveLength(0);
    const uploaded = await p.upload(owner.auth, { workspaceId }, [
      { name: 'heap.txt', bytes: Buffer.from('Turn the compost heap weekly; it needs air.'), mime: 'text/plain' },
    ]);
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(await p.settled(owner.auth, uploaded.body.file.id)).toMatchObject({ status: 'ready' });
    const semantic = await files('turning a heap', 'semantic');
    expect(semantic.status, semantic.text).toBe(200);
    expect(semantic.body.items.map((h: any) => [h.file.name, h.matched])).toEqual([['heap.txt', ['semantic']]]);
    // The query went to the model with its marker, as workspace search sends it.
    expect(queries()).toHaveLength(1);
    openai.setMode('hang');
    try {
      const hybrid = await files('compost weekly', 'hybrid');
      expect(hybrid.status, hybrid.text).toBe(200);
      expect(hybrid.body.items.map((h: any) => [h.file.name, h.matched])).toEqual([['heap.txt', ['content']]]);
      const refused = await files('compost weekly', 'semantic');
      expect(refused.status, refused.text).toBe(502);
      expect(refused.body.code).toBe('UPSTREAM_ERROR');
    } finally {
      openai.setMode('ok');
    }
  });
});
