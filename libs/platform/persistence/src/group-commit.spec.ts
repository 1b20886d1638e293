import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

/** A write that takes a turn of the event loop and records each batch it was given. */
function recorder(fail: (item: number) => boolean = () => false) {
  const batches: number[][] = [];
  const write = async (items: number[]) => {
    batches.push(items);
    await new Promise((r) => setTimeout(r, 5));
    if (items.some(fail)) throw new Error(`bad item in ${items.join(',')}`);
  };
  return { batches, write };
}

describe('GroupCommit', () => {
  it('writes a lone item at once, and items arriving meanwhile together in the next batch', async () => {
    const { batches, write } = recorder();
    const commit = new GroupCommit(write);
    const first = commit.add(1);
    expect(batches).toEqual([[1]]); // no timer: the first write started synchronously
    await Promise.all([first, commit.add(2), commit.add(3), commit.add(4)]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a batch at maxBatch', async () => {
    const { batches, write } = recorder();
    const commit = new GroupCommit(write, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => commit.add(n)));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("answers each caller its own item's result", async () => {
    const commit = new GroupCommit<number, string>(async (items) => {
      await new Promise((r) => setTimeout(r, 5));
      return items.map((n) => `#${n}`);
    });
    expect(await Promise.all([1, 2, 3].map((n) => commit.add(n)))).toEqual(['#1', '#2', '#3']);
  });

  it('when a batch fails, writes its items alone so only the bad item rejects', async () => {
    const { batches, write } = recorder((n) => n === 3);
    const commit = new GroupCommit(write);
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => commit.add(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
    // It keeps working after a failure.
    await commit.add(5);
    expect(batches.at(-1)).toEqual([5]);
  });
});
