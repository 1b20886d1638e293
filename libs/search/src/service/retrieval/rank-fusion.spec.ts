import { describe, expect, it } from 'vitest';
import { fuseByWeightedScore, semanticWeight } from './rank-fusion.js';

const list = (retriever: string, weight: number, hits: Array<[string, number]>) => ({
  retriever,
  weight,
  hits: hits.map(([fragmentId, score]) => ({ fragmentId, score })),
});

describe('fuseByWeightedScore', () => {
  it('adds each retriever its weight times the score relative to its best', () => {
    const fused = fuseByWeightedScore([
      list('keyword', 0.8, [
        ['a', 10],
        ['b', 5],
      ]),
      list('semantic', 0.2, [
        ['c', 0.9],
        ['b', 0.45],
      ]),
    ]);
    expect(fused.map((h) => h.fragmentId)).toEqual(['a', 'b', 'c']);
    expect(fused[1]).toEqual({ fragmentId: 'b', score: 0.8 * 0.5 + 0.2 * 0.5, matchedBy: ['keyword', 'semantic'] });
    expect(fused[2]!.score).toBeCloseTo(0.2);
  });

  it('keeps score gaps that rank fusion would flatten: a clear keyword winner stays first', () => {
    // Reciprocal rank fusion with the same weights would put b (2nd and 1st) above a (1st only):
    // 0.8/62 + 0.2/61 > 0.8/61.
    const fused = fuseByWeightedScore([
      list('keyword', 0.8, [
        ['a', 30],
        ['b', 3],
      ]),
      list('semantic', 0.2, [
        ['b', 0.31],
        ['x', 0.3],
      ]),
    ]);
    expect(fused[0]!.fragmentId).toBe('a');
  });

  it('breaks ties by id so paging is deterministic, and survives empty lists and zero scores', () => {
    const fused = fuseByWeightedScore([
      list('keyword', 0.5, [['z', 1]]),
      list('semantic', 0.5, [['y', 2]]),
      list('none', 1, []),
    ]);
    expect(fused.map((h) => h.fragmentId)).toEqual(['y', 'z']);
    expect(fuseByWeightedScore([list('keyword', 1, [['a', 0]])])).toEqual([
      { fragmentId: 'a', score: 0, matchedBy: ['keyword'] },
    ]);
  });
});

describe('semanticWeight', () => {
  it('trusts real embedding models more than the built-in word hashing, and a configured value most', () => {
    expect(semanticWeight(undefined, 'builtin')).toBe(0.2);
    expect(semanticWeight(undefined, 'openai')).toBe(0.5);
    expect(semanticWeight(0.7, 'builtin')).toBe(0.7);
    expect(semanticWeight(0, 'openai')).toBe(0);
  });
});
