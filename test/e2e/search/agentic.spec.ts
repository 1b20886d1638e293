import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

/** Agentic search (POST /api/fragments/agentic-search) on a small corpus: leads, steps, isolation. */
describe('agentic search', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let outsider: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;
  let other: Awaited<ReturnType<typeof p.workspace>>;
  const ids: Record<string, string> = {};

  const search = (body: Record<string, unknown>, auth = owner.auth) =>
    p.api.call(auth, 'POST', '/api/fragments/agentic-search', { workspaceId: ws.id, ...body });

  /** Waits for enrichment (the graph step) to finish; expect.poll is not available in beforeAll. */
  const published = async (id: string) => {
    for (let i = 0; i < 300; i++) {
      if ((await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${id}`)).body.fragment?.status === 'published')
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`fragment ${id} not published in time`);
  };

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    outsider = await p.person();
    ws = await p.workspace(owner);
    other = await p.workspace(owner);
    const make = async (workspace: typeof ws, title: string, content: string) => {
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId: workspace.id,
        fragmentTypeId: workspace.noteTypeId,
        title,
        content,
        tags: ['corpus'],
      });
      expect(res.status, res.text).toBe(201);
      ids[title] = res.body.fragment.id;
      await published(ids[title]);
    };
    await make(ws, 'Retention policy', 'We keep invoices for ten years. The retention rules are reviewed yearly.');
    await make(ws, 'Event pipeline', `Our event pipeline runs on Kafka and Rust. ${'Long details. '.repeat(100)}`);
    await make(ws, 'Cluster setup', 'Kafka brokers are deployed on Kubernetes.');
    await make(ws, 'Lunch menu', 'Soup on Mondays.');
    await make(ws, 'Archived retention', 'Old retention notes about invoices.');
    await make(other, 'Foreign retention', 'Retention of invoices in another workspace, with Kafka.');
    expect((await p.api.call(owner.auth, 'DELETE', `/api/memory-fragments/${ids['Archived retention']}`)).status).toBe(
      200,
    );
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('finds keyword leads and reports its steps', async () => {
    const res = await search({ query: 'How long do we keep invoices?' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps.map((s: any) => s.kind)).toEqual([
      'expand',
      'entities',
      'neighbours',
      'keyword',
      'graph',
      'merge',
    ]);
    expect(res.body.steps[0].terms).toEqual(['long', 'keep', 'invoices']);
    expect(res.body.leads[0]).toMatchObject({
      fragmentId: ids['Retention policy'],
      title: 'Retention policy',
      why: expect.stringContaining('keyword match'),
    });
    expect(res.body.leads.map((l: any) => l.title)).not.toContain('Lunch menu');
  });

  it('follows the graph from the entities the query names', async () => {
    const res = await search({ query: 'Kafka' });
    expect(res.status, res.text).toBe(200);
    const entities = res.body.steps.find((s: any) => s.kind === 'entities');
    expect(entities.terms).toEqual(['Kafka']);
    const neighbours = res.body.steps.find((s: any) => s.kind === 'neighbours');
    expect(neighbours.terms.sort()).toEqual(['Kubernetes', 'Rust']);
    const titles = res.body.leads.map((l: any) => l.title);
    expect(titles.slice(0, 2).sort()).toEqual(['Cluster setup', 'Event pipeline']);
    expect(res.body.leads[0].why).toMatch(/mentions Kafka/);
    expect(res.body.expandedTerms).toEqual(expect.arrayContaining(['kafka', 'Kubernetes', 'Rust']));
  });

  it('returns leads with snippets only, de-duplicated and capped by maxLeads', async () => {
    const res = await search({ query: 'Kafka retention invoices pipeline', maxLeads: 2 });
    expect(res.body.leads).toHaveLength(2);
    const all = await search({ query: 'Kafka retention invoices pipeline', maxLeads: 50 });
    const leadIds = all.body.leads.map((l: any) => l.fragmentId);
    expect(new Set(leadIds).size).toBe(leadIds.length);
    for (const lead of all.body.leads) {
      expect(Object.keys(lead).sort()).toEqual(['fragmentId', 'score', 'snippet', 'title', 'why']);
      expect(lead.snippet.length).toBeLessThanOrEqual(200);
    }
  });

  it('never shows archived fragments nor another workspace', async () => {
    const res = await search({ query: 'retention invoices Kafka', maxLeads: 50 });
    const titles = res.body.leads.map((l: any) => l.title);
    expect(titles).toContain('Retention policy');
    expect(titles).not.toContain('Archived retention');
    expect(titles).not.toContain('Foreign retention');
    const outside = await search({ query: 'retention' }, outsider.auth);
    expect(outside.status).toBe(404);
    expect(outside.text).toBe(WORKSPACE_NOT_FOUND);
  });

  it('takes hostile queries in its stride', async () => {
    for (const query of ["'); drop table fragments; --", 'a & b | !c <-> d:*', '🙂🙂', '((((']) {
      const res = await search({ query });
      expect(res.status, `${query}: ${res.text}`).toBe(200);
    }
    // Text the database cannot store is refused at the edge for every route (docs/errors.md).
    const nul = await search({ query: '\u0000' });
    expect(nul.status).toBe(400);
    expect(JSON.parse(nul.text)).toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: [{ field: 'query', problems: ['must not contain the NUL character (U+0000)'] }],
    });
    expect((await search({ query: '' })).status).toBe(400);
    expect((await search({ query: 'x', maxLeads: 51 })).status).toBe(400);
  });
});
