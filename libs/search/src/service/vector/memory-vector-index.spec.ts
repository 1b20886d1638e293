import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import fc from 'fast-check';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../../test/support/postgres.js';
import { describeWith } from '../../../../../test/support/services.js';
import {
  ChunkFixture,
  expectExactRanking,
  smallFragments,
  smallVector,
} from '../../../../../test/support/chunk-vectors.js';
import type { SearchDb } from '../../persistence/search-database.js';
import { ChunkVectorsRepository } from '../../persistence/vectors/chunk-vectors.repository.js';
import { ExactCosineIndex } from '../../persistence/vectors/exact-cosine-index.js';
import { decodeFloat4Array } from '@kw/platform-ranking';
import { MemoryVectorIndex } from './memory-vector-index.js';
import { VectorIndexWarmup } from './vector-index-warmup.js';
import type { VectorHit, VectorIndex, VectorQuery } from './vector-index.js';

/** The fallback, recorded: which queries reached it. */
class RecordingFallback implements VectorIndex {
  readonly name = 'exact' as const;
  readonly asked: VectorQuery[] = [];
  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    this.asked.push(query);
    return [];
  }
}

/**
 * The in-process vector index against real Postgres: it must answer what exact cosine in SQL
 * answers, on the data as it is at the moment of the query (no events feed it).
 */
describeWith(['postgres'], 'in-process vector index (real Postgres)', () => {
  let database: MigratedTestDatabase<'data'>;
  let pool: pg.Pool;
  let db: SearchDb;
  const ws = randomUUID();
  const other = randomUUID();
  let chunks: ChunkFixture;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_memory_vectors', 'data');
    ({ pool, prisma: db } = database);
    chunks = new ChunkFixture(db);
    await chunks.addWorkspaces(ws, other);
  });
  afterAll(() => database?.close());
  beforeEach(() => chunks.clear());

  const fragment = (vectors: number[][], workspaceId = ws) => chunks.fragment(vectors, workspaceId);
  const embed = (fragmentId: string, vectors: number[][], workspaceId = ws, version = 1) =>
    chunks.embed(fragmentId, vectors, workspaceId, version);

  const query = (vector: number[], extra: Partial<VectorQuery> = {}): VectorQuery => ({
    workspaceIds: [ws],
    vector,
    limit: 10,
    minSimilarity: 0,
    ...extra,
  });
  const index = (maxFloats = 1_000_000, fallback: VectorIndex = new RecordingFallback()) =>
    new MemoryVectorIndex(new ChunkVectorsRepository(db, { pool }), maxFloats, fallback);

  it("decodes PostgreSQL's binary float4[] exactly", async () => {
    const values = [0, 1, -2.5, 3.4028234663852886e38, 1.1754943508222875e-38, 0.1];
    const [row] = await db.$queryRawUnsafe<Array<{ e: Uint8Array }>>(`SELECT array_send($1::float4[]) AS e`, values);
    expect([...decodeFloat4Array(row!.e)]).toEqual([...Float32Array.from(values)]);
    const [empty] = await db.$queryRawUnsafe<Array<{ e: Uint8Array }>>(`SELECT array_send('{}'::float4[]) AS e`);
    expect(decodeFloat4Array(empty!.e)).toHaveLength(0);
  });

  it('ranks like exact cosine in SQL: best chunk per fragment, threshold, limit, ties by id', async () => {
    await fc.assert(
      fc.asyncProperty(
        smallFragments(12),
        smallVector,
        fc.constantFrom(0, 0.3, 0.9),
        fc.integer({ min: 1, max: 8 }),
        async (fragments, vector, minSimilarity, limit) => {
          await chunks.clear();
          for (const vectors of fragments) await fragment(vectors);
          const q = query(vector, { minSimilarity, limit });
          const exact = await new ExactCosineIndex(db).nearest({ ...q, limit: 1_000 });
          expectExactRanking(await index().nearest(q), exact, limit, minSimilarity);
        },
      ),
      // The examples: a cosine of exactly 0.9 at threshold 0.9 (SQL: a hair under), one of exactly 0
      // at threshold 0 (float32 made it -1e-9 here; SQL, 0).
      {
        numRuns: 25,
        examples: [
          [[[[5, 3, 4]], [[0, 0, 0]]], [1, 0, 1], 0.9, 1],
          [
            [
              [
                [-5, -1, 5],
                [0, 0, 0],
              ],
            ],
            [3, -5, 2],
            0,
            1,
          ],
        ],
      },
    );
  });

  it('sees every change at the next query with nothing feeding it: new, re-embedded, archived and deleted fragments', async () => {
    const memory = index();
    const a = await fragment([[1, 0, 0]]);
    expect((await memory.nearest(query([1, 0, 0]))).map((h) => h.fragmentId)).toEqual([a]);

    const b = await fragment([[0, 1, 0]]);
    expect((await memory.nearest(query([0, 1, 0]))).map((h) => h.fragmentId)).toEqual([b, a]);

    await embed(a, [[0, 0, 1]], ws, 1);
    expect((await memory.nearest(query([0, 0, 1], { minSimilarity: 0.5 }))).map((h) => h.fragmentId)).toEqual([a]);

    await db.fragment.update({ where: { id: a }, data: { archivedAt: new Date() } });
    expect((await memory.nearest(query([0, 0, 1]))).map((h) => h.fragmentId)).toEqual([b]);

    await db.fragment.delete({ where: { id: b } });
    expect(await memory.nearest(query([0, 1, 0]))).toEqual([]);
    expect(memory.heldFloats).toBe(0);
  });

  it('reads only the runs written since its last read, and fills the limit past dead best hits', async () => {
    const calls: string[] = [];
    const repository = new ChunkVectorsRepository(db, { pool });
    const recording = {
      liveRuns: (ids: string[]) => (calls.push('all'), repository.liveRuns(ids)),
      runsSince: (ids: string[], since: number) => (calls.push('since'), repository.runsSince(ids, since)),
      currentRuns: (ids: string[]) => repository.currentRuns(ids),
      chunkVectors: (ids: string[]) => repository.chunkVectors(ids),
    };
    const memory = new MemoryVectorIndex(recording, 1_000_000, new RecordingFallback());
    const best = await fragment([[1, 0, 0]]);
    const second = await fragment([[1, 0.2, 0]]);
    const third = await fragment([[1, 0.4, 0]]);
    expect((await memory.nearest(query([1, 0, 0], { limit: 2 }))).map((h) => h.fragmentId)).toEqual([best, second]);
    const fourth = await fragment([[1, 0.1, 0]]);
    await db.fragment.update({ where: { id: best }, data: { archivedAt: new Date() } });
    await db.fragment.delete({ where: { id: fourth } });
    // The two best are dead (one archived, one deleted after it was read): the limit is still filled.
    expect((await memory.nearest(query([1, 0, 0], { limit: 2 }))).map((h) => h.fragmentId)).toEqual([second, third]);
    expect(calls).toEqual(['all', 'since']);
  });

  it('fills the limit past more dead hits than one check covers', async () => {
    const memory = index();
    const dead = [];
    for (let i = 0; i < 14; i++) dead.push(await fragment([[1, i / 100, 0]]));
    const alive = await fragment([[1, 0.5, 0]]);
    expect(await memory.nearest(query([1, 0, 0], { limit: 1 }))).toHaveLength(1);
    await db.fragment.updateMany({ where: { id: { in: dead } }, data: { archivedAt: new Date() } });
    expect((await memory.nearest(query([1, 0, 0], { limit: 1 }))).map((h) => h.fragmentId)).toEqual([alive]);
  });

  it('skips a fragment whose text changed but is not re-embedded yet (its chunks are of an older version)', async () => {
    const memory = index();
    const a = await fragment([[1, 0, 0]]);
    await db.fragment.update({ where: { id: a }, data: { version: 2 } });
    expect(await memory.nearest(query([1, 0, 0]))).toEqual([]);
  });

  it('keeps a fragment whose chunks followed a new version without new text (tags, type or key changed)', async () => {
    const memory = index();
    const a = await fragment([[1, 0, 0]]);
    // Embedded a while ago: a read of the runs written since the last query does not reach it.
    await db.fragmentChunk.updateMany({ where: { fragmentId: a }, data: { createdAt: new Date(Date.now() - 30_000) } });
    expect((await memory.nearest(query([1, 0, 0]))).map((h) => h.fragmentId)).toEqual([a]);
    // What the fragments component does for an update that leaves the text alone: the fragment
    // and its chunks move to version 2 together, the chunks keeping their created_at.
    await db.fragment.update({ where: { id: a }, data: { version: 2 } });
    await db.fragmentChunk.updateMany({ where: { fragmentId: a }, data: { version: 2 } });
    expect((await memory.nearest(query([1, 0, 0]))).map((h) => h.fragmentId)).toEqual([a]);
    expect((await memory.nearest(query([1, 0, 0]))).map((h) => h.fragmentId)).toEqual([a]);
    // New text (version 3, chunks still of version 2) is not found by the old text's vectors.
    await db.fragment.update({ where: { id: a }, data: { version: 3 } });
    expect(await memory.nearest(query([1, 0, 0]))).toEqual([]);
  });

  it('never answers outside the given workspaces', async () => {
    const memory = index();
    const mine = await fragment([[1, 0, 0]]);
    await fragment([[1, 0, 0]], other);
    expect((await memory.nearest(query([1, 0, 0]))).map((h) => h.fragmentId)).toEqual([mine]);
    expect(await memory.nearest(query([1, 0, 0], { workspaceIds: [] }))).toEqual([]);
  });

  it('warms a workspace ahead of its first query, never by evicting another one', async () => {
    const fallback = new RecordingFallback();
    const memory = index(6, fallback);
    await fragment([[1, 0, 0]]);
    await fragment([[0, 1, 0]], other);
    await fragment([[0, 0, 1]], other);
    expect(await memory.warm(ws)).toBe(true);
    expect(memory.heldFloats).toBe(3);
    // `other` needs 6 floats: it would fit alone, but not beside `ws`, which stays.
    expect(await memory.warm(other)).toBe(false);
    expect(memory.heldFloats).toBe(3);
    // A query for `other` still gets it from memory (evicting `ws`), not from the fallback.
    expect(await memory.nearest(query([0, 1, 0], { workspaceIds: [other] }))).toHaveLength(2);
    expect(fallback.asked).toHaveLength(0);
    expect(memory.heldFloats).toBe(6);
  });

  it('is filled at start-up by the warm-up, largest workspace first, until the budget is full', async () => {
    await fragment([[1, 0, 0]]);
    await fragment([[0, 1, 0]], other);
    await fragment([[0, 0, 1]], other);
    const logged: string[] = [];
    const logger = {
      info: (_: unknown, msg: string) => logged.push(msg),
      warn: (_: unknown, msg: string) => logged.push(msg),
    } as never;
    const roomy = index();
    const warmup = new VectorIndexWarmup(roomy, new ChunkVectorsRepository(db, { pool }), logger);
    warmup.onApplicationBootstrap();
    await warmup.done();
    expect(roomy.heldFloats).toBe(9);
    expect(logged).toEqual(['vector index warm-up started', 'vector index warm-up done']);

    // Room for `other` (6 floats, the larger) only: it is loaded, `ws` is left for its first query.
    const tight = index(6);
    const partial = new VectorIndexWarmup(tight, new ChunkVectorsRepository(db, { pool }), logger);
    partial.onApplicationBootstrap();
    await partial.done();
    expect(tight.heldFloats).toBe(6);
    expect(await tight.nearest(query([0, 1, 0], { workspaceIds: [other] }))).toHaveLength(2);
  });

  it('stays within its budget: evicts the least recently searched workspace, and leaves a workspace too big to the fallback', async () => {
    const fallback = new RecordingFallback();
    const memory = index(6, fallback);
    await fragment([[1, 0, 0]]);
    await fragment([[1, 0, 0]], other);
    await memory.nearest(query([1, 0, 0]));
    await memory.nearest(query([1, 0, 0], { workspaceIds: [other] }));
    expect(memory.heldFloats).toBe(6);
    await fragment([[0, 1, 0]], other);
    // `other` now needs 6 floats: `ws` (least recently searched) goes.
    expect(await memory.nearest(query([0, 1, 0], { workspaceIds: [other] }))).toHaveLength(2);
    expect(memory.heldFloats).toBe(6);
    expect(fallback.asked).toHaveLength(0);

    await fragment([[0, 0, 1]], other);
    expect(await memory.nearest(query([0, 0, 1], { workspaceIds: [other] }))).toEqual([]);
    expect(fallback.asked).toHaveLength(1);
    expect(memory.heldFloats).toBe(0);
  });
});
