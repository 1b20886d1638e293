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
    const res = await search('home office on fridays?');
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps[0]).toMatchObject({
      terms: ['home', 'office', 'fridays'],
      detail: expect.stringContaining('failed'),
    });
    expect(res.body.leads[0].title).toBe('Work policy');
  });
});
