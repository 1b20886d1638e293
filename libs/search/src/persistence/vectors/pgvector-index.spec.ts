import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPrismaClient,
  EMBEDDED_POOL,
  migrate,
  startPGliteServer,
  type EmbeddedServer,
} from '@kw/platform-persistence';
import type { VectorQuery } from '../../service/vector/vector-index.js';
import {
  ChunkFixture,
  expectExactRanking,
  smallFragments,
  smallVector,
} from '../../../../../test/support/chunk-vectors.js';
import type { SearchDb } from '../search-database.js';
import { ChunkVectorsRepository } from './chunk-vectors.repository.js';
import { ExactCosineIndex } from './exact-cosine-index.js';
import { PgvectorIndex } from './pgvector-index.js';

/**
 * pgvector on the embedded database, where the data plane migrates with the extension and the
 * chunks carry `embedding_vector`: the stored-vector query must answer what the cast query and
 * exact cosine answer, and skip what they skip.
 */
describe('pgvector index on the embedded database (stored vectors)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-pgvector-'));
  let server: EmbeddedServer;
  let pool: pg.Pool;
  let db: SearchDb;
  let schema: string;
  const ws = randomUUID();
  const other = randomUUID();
  let chunks: ChunkFixture;

  beforeAll(async () => {
    server = await startPGliteServer({ dataDir });
    pool = new pg.Pool({ connectionString: server.connectionString, ...EMBEDDED_POOL });
    await migrate(pool, 'data');
    db = createPrismaClient('data', pool);
    schema = (await new ChunkVectorsRepository(db, { pool }).pgvectorSchema())!;
    chunks = new ChunkFixture(db);
    await chunks.addWorkspaces(ws, other);
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await pool?.end();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => chunks.clear());

  const fragment = (vectors: number[][], workspaceId = ws) => chunks.fragment(vectors, workspaceId);

  const query = (vector: number[], extra: Partial<VectorQuery> = {}): VectorQuery => ({
    workspaceIds: [ws],
    vector,
    limit: 10,
    minSimilarity: 0,
    ...extra,
  });
  const ids = (hits: { fragmentId: string }[]) => hits.map((h) => h.fragmentId);

  it('finds the stored vectors at start-up', async () => {
    const index = await new ChunkVectorsRepository(db, { pool }).pgvectorIndex(schema);
    expect(index.storedVectors).toBe(true);
  });

  it('ranks like the cast query and like exact cosine: best chunk per fragment, threshold, limit', async () => {
    const stored = new PgvectorIndex(db, schema, true);
    const cast = new PgvectorIndex(db, schema, false);
    const exact = new ExactCosineIndex(db);
    await fc.assert(
      fc.asyncProperty(
        smallFragments(10),
        smallVector,
        fc.constantFrom(0, 0.3, 0.9),
        fc.integer({ min: 1, max: 8 }),
        async (fragments, vector, minSimilarity, limit) => {
          await chunks.clear();
          for (const vectors of fragments) await fragment(vectors);
          const q = query(vector, { minSimilarity, limit });
          const fromStored = await stored.nearest(q);
          // The same arithmetic on the same floats: the same answer, to the bit.
          expect(fromStored).toEqual(await cast.nearest(q));
          // Exact cosine sums in float8.
          expectExactRanking(fromStored, await exact.nearest({ ...q, limit: 1_000 }), limit, minSimilarity);
        },
      ),
      // The example: a zero vector among the chunks (pgvector's cosine is NaN there).
      {
        numRuns: 20,
        examples: [
          [
            [
              [
                [0, 0, 0],
                [2, 1, 0],
              ],
              [[0, 0, 0]],
              [[1, 2, 3]],
            ],
            [1, 1, 1],
            0,
            5,
          ],
        ],
      },
    );
  });

  it('skips chunks of another dimension, zero vectors, older versions, archived fragments and other workspaces', async () => {
    const index = new PgvectorIndex(db, schema, true);
    const kept = await fragment([
      [1, 0, 0],
      [1, 0, 0, 0], // written by another provider: not comparable, not an error
    ]);
    const otherDimension = await fragment([[1, 0, 0, 0]]);
    await fragment([[0, 0, 0]]); // no direction: cosine is undefined, never a match
    const rewritten = await fragment([[1, 0, 0]]);
    await db.fragment.update({ where: { id: rewritten }, data: { version: 2 } });
    const archived = await fragment([[1, 0, 0]]);
    await db.fragment.update({ where: { id: archived }, data: { archivedAt: new Date() } });
    await fragment([[1, 0, 0]], other);

    expect(ids(await index.nearest(query([1, 0, 0], { minSimilarity: -1 })))).toEqual([kept]);
    expect(ids(await index.nearest(query([1, 0, 0, 0], { minSimilarity: -1 })))).toEqual([kept, otherDimension].sort());
  });

  it('still finds the best live fragments when the closest candidates are all archived or stale', async () => {
    const index = new PgvectorIndex(db, schema, true);
    // 30 dead fragments closer than any live one: more than the oversampled candidates of limit 2.
    for (let i = 0; i < 30; i++) {
      const dead = await fragment([[1, 0, 0.01 * i]]);
      await db.fragment.update({
        where: { id: dead },
        data: i % 2 ? { archivedAt: new Date() } : { version: 2 },
      });
    }
    const near = await fragment([[1, 1, 0]]);
    const far = await fragment([[0, 1, 0]]);
    await fragment([[-1, 0, 0]]);
    const hits = await index.nearest(query([1, 0, 0], { limit: 2, minSimilarity: -1 }));
    expect(ids(hits)).toEqual([near, far]);
    const exact = await new ExactCosineIndex(db).nearest(query([1, 0, 0], { limit: 2, minSimilarity: -1 }));
    expect(ids(hits)).toEqual(ids(exact));
  });
});
