import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { DataPrismaClient } from '@kw/platform-persistence';

/**
 * Fragments with chunk embeddings, written as the embedding step writes them, for the specs of
 * the vector indexes (libs/search/src/service/vector, libs/search/src/persistence/vectors).
 */
export class ChunkFixture {
  readonly user = randomUUID();
  private readonly typeIds = new Map<string, string>();

  constructor(private readonly db: DataPrismaClient) {}

  /** A note type per workspace (fragments need one). */
  async addWorkspaces(...workspaceIds: string[]): Promise<void> {
    for (const w of workspaceIds)
      this.typeIds.set(
        w,
        (await this.db.fragmentType.create({ data: { workspaceId: w, key: 'note', name: 'Note' } })).id,
      );
  }

  async clear(): Promise<void> {
    await this.db.$executeRaw`TRUNCATE data.fragments, data.fragment_chunks CASCADE`;
  }

  /** A fragment embedded into these chunk vectors. */
  async fragment(vectors: number[][], workspaceId: string): Promise<string> {
    const f = await this.db.fragment.create({
      data: {
        workspaceId,
        fragmentTypeId: this.typeIds.get(workspaceId)!,
        title: 't',
        content: 'c',
        createdBy: this.user,
        updatedBy: this.user,
      },
    });
    await this.embed(f.id, vectors, workspaceId);
    return f.id;
  }

  /** Replaces the fragment's chunks by these vectors, of this version. */
  async embed(fragmentId: string, vectors: number[][], workspaceId: string, version = 1): Promise<void> {
    await this.db.$transaction([
      this.db.fragmentChunk.deleteMany({ where: { fragmentId } }),
      this.db.fragmentChunk.createMany({
        data: vectors.map((embedding, ordinal) => ({
          fragmentId,
          workspaceId,
          ordinal,
          text: `chunk ${ordinal}`,
          embedding,
          version,
        })),
      }),
    ]);
  }
}

/** Small integer vectors of three dimensions: ties, opposites and zero vectors are frequent. */
export const smallVector = fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 3, maxLength: 3 });

/** Up to `max` fragments of 1 to 3 such chunks each. */
export const smallFragments = (max: number) =>
  fc.array(fc.array(smallVector, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: max });

/**
 * `hits` rank like exact cosine in SQL (`exact`, every hit over the threshold): the same scores
 * in the same order to 5 places, each the fragment's own; fragments whose scores tie may come
 * in either order. A cosine within 1e-6 of `minSimilarity` may fall on either side of it in
 * float4 or float8 arithmetic (cos([5,3,4],[1,0,1]) is 0.9, and 0.8999999999999998 in SQL): such
 * hits, always the last, are left out of both lists before comparing.
 */
export function expectExactRanking(
  hits: Array<{ fragmentId: string; similarity: number }>,
  exact: Array<{ fragmentId: string; similarity: number }>,
  limit: number,
  minSimilarity?: number,
): void {
  const clear = (h: { similarity: number }) =>
    minSimilarity === undefined || Math.abs(h.similarity - minSimilarity) > 1e-6;
  const [mine, theirs] = [hits.filter(clear), exact.filter(clear)];
  const scoreOf = new Map(theirs.map((h) => [h.fragmentId, h.similarity]));
  // Borderline hits rank below every clear one, so the clear ones are the same prefix.
  expect(mine).toHaveLength(Math.min(limit, theirs.length));
  mine.forEach((h, i) => {
    expect(h.similarity).toBeCloseTo(theirs[i]!.similarity, 5);
    expect(scoreOf.get(h.fragmentId)).toBeCloseTo(h.similarity, 5);
  });
}
