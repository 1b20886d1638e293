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
 * in either order.
 */
export function expectExactRanking(
  hits: Array<{ fragmentId: string; similarity: number }>,
  exact: Array<{ fragmentId: string; similarity: number }>,
  limit: number,
): void {
  const scoreOf = new Map(exact.map((h) => [h.fragmentId, h.similarity]));
  expect(hits).toHaveLength(Math.min(limit, exact.length));
  hits.forEach((h, i) => {
    expect(h.similarity).toBeCloseTo(exact[i]!.similarity, 5);
    expect(scoreOf.get(h.fragmentId)).toBeCloseTo(h.similarity, 5);
  });
}
