import { describe, expect, it } from 'vitest';
import type { ChunkVectorRow, ChunkVectorsRepository } from '../persistence/chunk-vectors.repository.js';
import { ChunkVectors } from './chunk-vectors.js';

/** A float4[] as `array_send` writes it: one dimension, no nulls, big-endian floats. */
function arraySend(values: number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(20 + values.length * 8));
  view.setInt32(0, 1);
  view.setInt32(4, 0);
  view.setInt32(8, 700);
  view.setInt32(12, values.length);
  view.setInt32(16, 1);
  values.forEach((v, i) => {
    view.setInt32(20 + i * 8, 4);
    view.setFloat32(24 + i * 8, v);
  });
  return new Uint8Array(view.buffer);
}

/** The workspaces' chunks as the repository would read them (each file processed at `processed[file]`, 1 by default), and the files it read. */
function repository(
  workspaces: Record<string, Array<[string, number, number[]]>>,
  processed: Record<string, number> = {},
) {
  const reads: string[][] = [];
  const filesOf = (id: string) => [...new Set((workspaces[id] ?? []).map(([f]) => f))];
  const repo = {
    version: async (id: string) => ({
      key: JSON.stringify([workspaces[id] ?? [], filesOf(id).map((f) => processed[f] ?? 1)]),
      chunks: (workspaces[id] ?? []).length,
    }),
    readyFiles: async (id: string) => filesOf(id).map((f) => ({ f, p: processed[f] ?? 1 })),
    vectors: async (id: string, fileIds: string[]): Promise<ChunkVectorRow[]> => {
      reads.push([...fileIds].sort());
      return (workspaces[id] ?? [])
        .filter(([f]) => fileIds.includes(f))
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
        .map(([f, o, v]) => ({ f, o, e: arraySend(v) }));
    },
  };
  return { repo: repo as unknown as ChunkVectorsRepository, reads };
}

const options = { limit: 10, minSimilarity: 0.1 };

describe('ChunkVectors', () => {
  it("ranks files by their best chunk's cosine, above the threshold, ties by file id", async () => {
    const { repo } = repository({
      w: [
        ['b', 0, [1, 0, 0]],
        ['a', 0, [0, 1, 0]],
        ['a', 1, [1, 0.1, 0]],
        ['c', 0, [0, 0, 1]], // orthogonal: under the threshold
        ['d', 0, [1, 0, 0]],
      ],
    });
    const vectors = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 1 });
    const hits = await vectors.nearest('w', async () => [2, 0, 0], options);
    expect(hits!.map((h) => [h.fileId, h.ordinal])).toEqual([
      ['b', 0],
      ['d', 0],
      ['a', 1],
    ]);
    expect(hits![0]!.similarity).toBeCloseTo(1, 6);
    expect(hits![2]!.similarity).toBeCloseTo(1 / Math.sqrt(1.01), 6);
    expect(await vectors.nearest('w', async () => [0, 0, 0], options)).toEqual([]);
  });

  it('reads only the files processed since, or drops those gone, when the files changed', async () => {
    const workspaces: Record<string, Array<[string, number, number[]]>> = {
      w: [
        ['a', 0, [1, 0]],
        ['b', 0, [0, 1]],
      ],
    };
    const processed: Record<string, number> = {};
    const { repo, reads } = repository(workspaces, processed);
    const vectors = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 1 });
    await vectors.nearest('w', async () => [1, 0], options);
    await vectors.nearest('w', async () => [1, 0], options);
    expect(reads).toEqual([['a', 'b']]);
    // c uploaded: only c is read.
    workspaces.w = [...workspaces.w!, ['c', 0, [1, 1]]];
    expect((await vectors.nearest('w', async () => [1, 1], options))!.map((h) => h.fileId)).toEqual(['c', 'a', 'b']);
    expect(reads).toEqual([['a', 'b'], ['c']]);
    // a processed again (another text): only a is read; b deleted: dropped without a read.
    workspaces.w = [
      ['a', 0, [0, 1]],
      ['c', 0, [1, 1]],
    ];
    processed.a = 2;
    expect(
      (await vectors.nearest('w', async () => [0, 1], options))!.map((h) => [h.fileId, h.similarity > 0.99]),
    ).toEqual([
      ['a', true],
      ['c', false],
    ]);
    expect(reads).toEqual([['a', 'b'], ['c'], ['a']]);
    // An image (ready, no chunks) is asked for once, then held empty: a later refresh (another
    // file changed) does not ask for it again.
    let key = 'with an image';
    const withImage = repository({ w: workspaces.w! }, processed);
    const imageVectors = new ChunkVectors(
      {
        version: async () => ({ key, chunks: 2 }),
        readyFiles: async () => [...(await withImage.repo.readyFiles('w')), { f: 'image', p: 1 }],
        vectors: withImage.repo.vectors,
      } as unknown as ChunkVectorsRepository,
      { FILES_VECTOR_MEMORY_MB: 1 },
    );
    await imageVectors.nearest('w', async () => [0, 1], options);
    processed.c = 2;
    key = 'c processed again';
    await imageVectors.nearest('w', async () => [0, 1], options);
    expect(withImage.reads).toEqual([['a', 'c', 'image'], ['c']]);
  });

  it('does not ask for the query vector in a workspace without chunks', async () => {
    const { repo } = repository({ empty: [] });
    const vectors = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 1 });
    let asked = 0;
    const hits = await vectors.nearest(
      'empty',
      async () => {
        asked++;
        return [1, 0];
      },
      options,
    );
    expect(hits).toEqual([]);
    expect(asked).toBe(0);
  });

  it('compares the query with the chunks of its own dimension only (another model’s are left out)', async () => {
    const { repo } = repository({
      w: [
        ['a', 0, [1, 0]],
        ['b', 0, [0, 1]],
        ['old', 0, [1, 0, 0]],
      ],
    });
    const vectors = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 1 });
    expect((await vectors.nearest('w', async () => [1, 1], options))!.map((h) => h.fileId)).toEqual(['a', 'b']);
    expect((await vectors.nearest('w', async () => [1, 0, 0], options))!.map((h) => h.fileId)).toEqual(['old']);
  });

  it('holds workspaces within the budget, dropping the least recently searched, and none over it', async () => {
    const chunk = (f: string): [string, number, number[]] => [
      f,
      0,
      Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0)),
    ];
    // 1 MB holds 682 chunks of 384 floats: two workspaces of 400 do not fit together.
    const many = (prefix: string) => Array.from({ length: 400 }, (_, i) => chunk(`${prefix}${i}`));
    const { repo, reads } = repository({
      x: many('x'),
      y: many('y'),
      big: Array.from({ length: 700 }, (_, i) => chunk(`b${i}`)),
    });
    const vectors = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 1 });
    const query = chunk('q')[2];
    await vectors.nearest('x', async () => query, options);
    await vectors.nearest('y', async () => query, options); // x dropped
    await vectors.nearest('y', async () => query, options);
    await vectors.nearest('x', async () => query, options); // read again
    expect(reads.map((files) => files[0]![0])).toEqual(['x', 'y', 'x']);
    // Over the budget alone: not read at all, and no semantic candidates.
    expect(await vectors.nearest('big', async () => query, options)).toBeUndefined();
    expect(reads).toHaveLength(3);
    const none = new ChunkVectors(repo, { FILES_VECTOR_MEMORY_MB: 0 });
    expect(await none.nearest('x', async () => query, options)).toBeUndefined();
  });
});
