import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashEmbedding } from '../../../libs/platform/ai/src/feature-hashing.js';
import type { SearchDb } from '../../../libs/search/src/service/search-db.js';
import { QdrantIndex } from '../../../libs/search/src/vector/qdrant-index.js';

const QDRANT_URL = process.env.QDRANT_URL;
if (!QDRANT_URL) console.warn('[skipped] Qdrant vector index: set QDRANT_URL (e.g. http://127.0.0.1:6333) to run it');

/**
 * The Qdrant adapter against a real Qdrant (a scratch collection): nearest neighbours, never
 * another workspace's points. Postgres is stubbed: every fragment counts as live.
 */
describe.skipIf(!QDRANT_URL)('Qdrant vector index', () => {
  const collection = `kw_test_${randomUUID().slice(0, 8)}`;
  const liveDb = { $queryRawUnsafe: async (_sql: string, ids: string[]) => ids.map((id) => ({ id })) } as unknown as SearchDb;
  const index = new QdrantIndex(QDRANT_URL ?? '', liveDb, collection);

  afterAll(async () => {
    if (QDRANT_URL) await fetch(`${QDRANT_URL.replace(/\/+$/, '')}/collections/${collection}`, { method: 'DELETE' });
  });

  it('finds the nearest fragment of the asked workspace only', async () => {
    await index.ensureCollection(384);
    const [a, b]: string[] = [randomUUID(), randomUUID()];
    const texts = ['coffee brewing temperature', 'kubernetes cluster upgrade'];
    const points = [a!, b!].flatMap((workspaceId) => texts.map((text) => ({ id: randomUUID() as string, text, vector: hashEmbedding(text), workspaceId, fragmentId: randomUUID() as string })));
    await index.upsertChunks(points);
    const hits = await index.nearest({ workspaceIds: [a], vector: hashEmbedding('brewing coffee'), limit: 10, minSimilarity: 0.1 });
    const ofA: Set<string> = new Set(points.filter((p) => p.workspaceId === a).map((p) => p.fragmentId));
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(ofA.has(hit.fragmentId)).toBe(true);
    expect(hits[0]!.fragmentId).toBe(points.find((p) => p.workspaceId === a && p.text === texts[0])!.fragmentId);
  });
});
