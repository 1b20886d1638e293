import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashEmbedding } from '../../../libs/platform/ai/src/feature-hashing.js';
import { QDRANT_COLLECTION_PREFIX, QdrantIndex } from '../../../libs/search/src/service/vector/qdrant-index.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';

const QDRANT_URL = process.env.QDRANT_URL;
if (!QDRANT_URL) console.warn('[skipped] Qdrant vector index: set QDRANT_URL (e.g. http://127.0.0.1:6333) to run it');
const qdrant = (path: string, init?: RequestInit) =>
  fetch(`${(QDRANT_URL ?? '').replace(/\/+$/, '')}${path}`, {
    headers: { 'content-type': 'application/json' },
    ...init,
  });

/** The fragment ids that have points in a collection. */
async function fragmentsIn(collection: string, fragmentIds: string[]): Promise<string[]> {
  const res = await qdrant(`/collections/${collection}/points/scroll`, {
    method: 'POST',
    body: JSON.stringify({
      filter: { must: [{ key: 'fragment_id', match: { any: fragmentIds } }] },
      limit: 1000,
      with_payload: ['fragment_id'],
    }),
  });
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: { points: Array<{ payload: { fragment_id: string } }> } };
  return [...new Set(body.result.points.map((p) => p.payload.fragment_id))].sort();
}

/**
 * The Qdrant adapter against a real Qdrant (scratch collections): nearest neighbours, never
 * another workspace's points, the writer side (replace, delete). Postgres is stubbed: every
 * fragment counts as live at version 1.
 */
describe.skipIf(!QDRANT_URL)('Qdrant vector index', () => {
  const prefix = `kw_test_${randomUUID().slice(0, 8)}`;
  const liveDb = { liveFragmentIds: async (ids: string[]) => ids };
  const index = new QdrantIndex(QDRANT_URL ?? '', liveDb, prefix);

  afterAll(async () => {
    if (QDRANT_URL)
      for (const name of await index.collections()) await qdrant(`/collections/${name}`, { method: 'DELETE' });
  });

  it('is empty and finds nothing before the first write', async () => {
    expect(await index.isEmpty()).toBe(true);
    expect(
      await index.nearest({
        workspaceIds: [randomUUID()],
        vector: hashEmbedding('anything'),
        limit: 5,
        minSimilarity: 0.1,
      }),
    ).toEqual([]);
  });

  it('finds the nearest fragment of the asked workspace only', async () => {
    const [a, b]: string[] = [randomUUID(), randomUUID()];
    const texts = ['coffee brewing temperature', 'kubernetes cluster upgrade'];
    const fragments = [a, b].flatMap((workspaceId) =>
      texts.map((text) => ({ workspaceId, text, fragmentId: randomUUID() as string })),
    );
    for (const f of fragments)
      await index.upsertFragment(f.workspaceId, f.fragmentId, 1, [{ chunkIndex: 0, vector: hashEmbedding(f.text) }]);
    expect(await index.isEmpty()).toBe(false);
    const hits = await index.nearest({
      workspaceIds: [a],
      vector: hashEmbedding('brewing coffee'),
      limit: 10,
      minSimilarity: 0.1,
    });
    const ofA = new Set(fragments.filter((f) => f.workspaceId === a).map((f) => f.fragmentId));
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(ofA.has(hit.fragmentId)).toBe(true);
    expect(hits[0]!.fragmentId).toBe(fragments.find((f) => f.workspaceId === a && f.text === texts[0])!.fragmentId);
  });

  it('replaces a fragment’s points on re-sync (fewer chunks, another dimension) and deletes them', async () => {
    const ws = randomUUID();
    const id = randomUUID();
    const chunks = ['first chunk about sailing', 'second chunk about knots', 'third chunk about tides'].map(
      (t, chunkIndex) => ({ chunkIndex, vector: hashEmbedding(t) }),
    );
    await index.upsertFragment(ws, id, 1, chunks);
    await index.upsertFragment(ws, id, 1, chunks); // idempotent: same point ids
    const count = async (collection: string) => {
      const res = await qdrant(`/collections/${collection}/points/count`, {
        method: 'POST',
        body: JSON.stringify({ filter: { must: [{ key: 'fragment_id', match: { value: id } }] }, exact: true }),
      });
      return res.status === 404 ? 0 : ((await res.json()) as { result: { count: number } }).result.count;
    };
    expect(await count(index.collectionFor(384))).toBe(3);
    await index.upsertFragment(ws, id, 2, chunks.slice(0, 1));
    expect(await count(index.collectionFor(384))).toBe(1);
    // A provider with another dimension: the points move to that dimension's collection.
    await index.upsertFragment(ws, id, 3, [{ chunkIndex: 0, vector: [1, 0, 0, 0] }]);
    expect([await count(index.collectionFor(384)), await count(index.collectionFor(4))]).toEqual([0, 1]);
    await index.deleteFragment(id);
    await index.deleteFragment(id);
    expect([await count(index.collectionFor(384)), await count(index.collectionFor(4))]).toEqual([0, 0]);
  });
});

/**
 * The platform with QDRANT_URL: a fragment created over HTTP becomes findable by meaning through
 * Qdrant once embedded, and an archived one disappears (from the results and from Qdrant).
 * Uses the default collection; its workspaces are new, so other data there does not matter.
 */
describe.skipIf(!QDRANT_URL)('search with the Qdrant index (embedded platform)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  afterAll(async () => {
    await p?.stop();
  });

  it('selects Qdrant, syncs a new fragment, finds it by meaning, and forgets it once archived', async () => {
    p = await startFragmentsPlatform({ QDRANT_URL: QDRANT_URL ?? '' });
    const selected = p.platform.logs.find((l: any) => l.msg === 'search vector index selected') as any;
    expect(selected?.vectorIndex).toBe('qdrant');
    owner = await p.person();
    const ws = await p.workspace(owner);
    const make = async (title: string, content: string) => {
      const res = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title,
        content,
      });
      expect(res.status, res.text).toBe(201);
      return res.body.fragment.id as string;
    };
    const coffee = await make(
      'Morning coffee',
      'Coffee brewing: grind size, water temperature and pour-over technique.',
    );
    const other = await make('Cluster upgrades', 'Drain the Kubernetes nodes, then roll the control plane.');
    const collection = `${QDRANT_COLLECTION_PREFIX}_384`;
    await expect
      .poll(() => fragmentsIn(collection, [coffee, other]), { timeout: 60_000 })
      .toEqual([coffee, other].sort());
    const semantic = async () => {
      const res = await p.api.call(
        owner.auth,
        'GET',
        `/api/search?workspaceId=${ws.id}&q=${encodeURIComponent('brewing coffee beans')}&mode=semantic`,
      );
      expect(res.status, res.text).toBe(200);
      return res.body.results.map((r: any) => r.fragmentId) as string[];
    };
    expect((await semantic())[0]).toBe(coffee);

    expect((await p.api.call(owner.auth, 'DELETE', `/api/memory-fragments/${coffee}`)).status).toBe(200);
    // Never returned once archived (checked in Postgres at query time), and its points go.
    expect(await semantic()).not.toContain(coffee);
    await expect.poll(() => fragmentsIn(collection, [coffee, other]), { timeout: 60_000 }).toEqual([other]);
  }, 180_000);
});
