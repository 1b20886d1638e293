import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND } from '../workspaces/workspaces-api.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

/**
 * The graph routes on a small corpus whose entities the built-in extractor finds (technologies
 * and capitalised names, related when they share a paragraph):
 *   Ada Lovelace - PostgreSQL - Rust (one fragment), Rust - Kafka, Kafka - Kubernetes;
 *   an archived fragment adds Redis, another workspace adds MongoDB: neither may appear.
 */
describe('graph routes', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let outsider: Person;
  let ws: Awaited<ReturnType<typeof p.workspace>>;
  let other: Awaited<ReturnType<typeof p.workspace>>;
  const ids: Record<string, string> = {};

  const get = (path: string, auth = owner.auth) => p.api.call(auth, 'GET', path);
  const entity = async (q: string) =>
    (await get(`/api/graph/entities?workspaceId=${ws.id}&q=${encodeURIComponent(q)}`)).body.items[0];

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
        tags: ['graph'],
      });
      expect(res.status, res.text).toBe(201);
      ids[title] = res.body.fragment.id;
      await published(ids[title]);
    };
    await make(ws, 'Engine notes', 'Ada Lovelace compared PostgreSQL with Rust for the engine.');
    await make(ws, 'Streaming', 'We stream with Rust and Kafka.');
    await make(ws, 'Operations', 'Kafka runs on Kubernetes.');
    await make(ws, 'Secret', 'The secret cache uses Redis and Rust.');
    await make(other, 'Elsewhere', 'Rust with MongoDB in another workspace.');
    expect((await p.api.call(owner.auth, 'DELETE', `/api/memory-fragments/${ids.Secret}`)).status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('counts the live graph by kind', async () => {
    const res = await get(`/api/graph/stats?workspaceId=${ws.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.entitiesByKind).toEqual(
      expect.arrayContaining([
        { kind: 'technology', count: 4 },
        { kind: 'name', count: 1 },
      ]),
    );
    expect(res.body.entities).toBe(5);
    // Engine notes: 3 pairs; Streaming: 1; Operations: 1.
    expect(res.body.relations).toBe(5);
    expect(res.body.mentions).toBe(7);
  });

  it('searches entities by prefix and substring, most mentioned first', async () => {
    const prefix = await get(`/api/graph/entities?workspaceId=${ws.id}&q=ru`);
    expect(prefix.body.items.map((e: any) => [e.name, e.kind, e.mentionCount])).toEqual([['Rust', 'technology', 2]]);
    const sub = await get(`/api/graph/entities?workspaceId=${ws.id}&q=a&match=substring`);
    expect(sub.body.items.map((e: any) => e.name)).toEqual(['Kafka', 'Ada Lovelace']);
    expect(
      (await get(`/api/graph/entities?workspaceId=${ws.id}&q=a&match=substring&kind=name`)).body.items.map(
        (e: any) => e.name,
      ),
    ).toEqual(['Ada Lovelace']);
    for (const hidden of ['redis', 'mongo'])
      expect((await get(`/api/graph/entities?workspaceId=${ws.id}&q=${hidden}`)).body.items).toEqual([]);
    expect((await get(`/api/graph/entities?workspaceId=${ws.id}&q=%25`)).body.items).toEqual([]);
  });

  it('walks an entity neighbourhood to the depth asked, with the mentioning fragments', async () => {
    const ada = await entity('ada');
    const one = await get(`/api/graph/entities/${ada.id}/neighbourhood?workspaceId=${ws.id}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.root).toMatchObject({
      name: 'Ada Lovelace',
      depth: 0,
      fragments: [{ id: ids['Engine notes'], title: 'Engine notes' }],
    });
    expect(one.body.nodes.map((n: any) => [n.name, n.depth]).sort()).toEqual([
      ['Ada Lovelace', 0],
      ['PostgreSQL', 1],
      ['Rust', 1],
    ]);
    const three = await get(`/api/graph/entities/${ada.id}/neighbourhood?workspaceId=${ws.id}&depth=3`);
    expect(three.body.nodes.map((n: any) => [n.name, n.depth]).sort()).toEqual([
      ['Ada Lovelace', 0],
      ['Kafka', 2],
      ['Kubernetes', 3],
      ['PostgreSQL', 1],
      ['Rust', 1],
    ]);
    const rust = three.body.nodes.find((n: any) => n.name === 'Rust');
    expect(rust.fragments.map((f: any) => f.title).sort()).toEqual(['Engine notes', 'Streaming']);
    expect(three.body.edges.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(three.body)).not.toMatch(/Redis|Secret|MongoDB|Elsewhere/);
    expect((await get(`/api/graph/entities/${ada.id}/neighbourhood?workspaceId=${ws.id}&depth=4`)).status).toBe(400);
  });

  it('retrieves the subgraph and fragments a query names', async () => {
    const res = await p.api.call(owner.auth, 'POST', '/api/graph/retrieve', {
      workspaceId: ws.id,
      query: 'What do we know about Kafka?',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.seeds.map((s: any) => s.name)).toEqual(['Kafka']);
    expect(res.body.nodes.map((n: any) => n.name).sort()).toEqual(['Kafka', 'Kubernetes', 'Rust']);
    expect(res.body.fragments.map((f: any) => f.title)).toEqual(['Operations', 'Streaming', 'Engine notes']);
    expect(res.body.fragments[0].score).toBeGreaterThan(res.body.fragments[2].score);
    const none = await p.api.call(owner.auth, 'POST', '/api/graph/retrieve', {
      workspaceId: ws.id,
      query: 'MongoDB and Redis',
    });
    expect(none.body).toMatchObject({ seeds: [], nodes: [], edges: [], fragments: [] });
  });

  it('keeps entities of another workspace out: 404 for them, and 404 for non-members everywhere', async () => {
    const mongo = (await get(`/api/graph/entities?workspaceId=${other.id}&q=mongo`)).body.items[0];
    expect(mongo.name).toBe('MongoDB');
    const cross = await get(`/api/graph/entities/${mongo.id}/neighbourhood?workspaceId=${ws.id}`);
    expect(cross.status).toBe(404);
    expect((await get(`/api/graph/entities/${UNKNOWN_ID}/neighbourhood?workspaceId=${ws.id}`)).status).toBe(404);
    expect((await get(`/api/graph/entities/not-a-uuid/neighbourhood?workspaceId=${ws.id}`)).status).toBe(404);
    const ada = await entity('ada');
    for (const res of [
      await get(`/api/graph/stats?workspaceId=${ws.id}`, outsider.auth),
      await get(`/api/graph/entities?workspaceId=${ws.id}&q=a`, outsider.auth),
      await get(`/api/graph/entities/${ada.id}/neighbourhood?workspaceId=${ws.id}`, outsider.auth),
      await p.api.call(outsider.auth, 'POST', '/api/graph/retrieve', { workspaceId: ws.id, query: 'Kafka' }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.text).toBe(WORKSPACE_NOT_FOUND);
    }
  });

  it('answers hostile names and queries with 200 or 400, never 500', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom("'; drop table data.graph_entities; --", '%_\\', '\u0000', 'a & b | !c:*'),
    );
    await fc.assert(
      fc.asyncProperty(text, fc.constantFrom('prefix', 'substring'), async (q, match) => {
        const search = await get(`/api/graph/entities?workspaceId=${ws.id}&q=${encodeURIComponent(q)}&match=${match}`);
        const retrieve = await p.api.call(owner.auth, 'POST', '/api/graph/retrieve', {
          workspaceId: ws.id,
          query: q,
          depth: 3,
        });
        for (const res of [search, retrieve]) {
          expect([200, 400]).toContain(res.status);
          expect(res.text).not.toMatch(/syntax error|invalid byte|prisma|sqlstate/i);
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
