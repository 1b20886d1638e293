import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuseByWeightedScore, semanticWeight, type ScoreScale } from './rank-fusion.js';

const list = (retriever: string, weight: number, hits: Array<[string, number]>, scale: ScoreScale = 'best') => ({
  retriever,
  weight,
  hits: hits.map(([fragmentId, score]) => ({ fragmentId, score })),
  scale,
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

describe('fuseByWeightedScore with a list scaled over its range', () => {
  it('maps the list worst to 0 and its best to 1; a single or flat list counts fully', () => {
    const fused = fuseByWeightedScore([
      list(
        'semantic',
        1,
        [
          ['a', 0.9],
          ['b', 0.8],
          ['c', 0.7],
        ],
        'range',
      ),
    ]);
    expect(fused.map((h) => [h.fragmentId, +h.score.toFixed(6)])).toEqual([
      ['a', 1],
      ['b', 0.5],
      ['c', 0],
    ]);
    expect(fuseByWeightedScore([list('semantic', 0.5, [['a', 0.8]], 'range')])[0]!.score).toBe(0.5);
    expect(
      fuseByWeightedScore([
        list(
          'semantic',
          1,
          [
            ['a', 0.4],
            ['b', 0.4],
          ],
          'range',
        ),
      ]).map((h) => h.score),
    ).toEqual([1, 1]);
  });

  it('a dense model in a narrow band: over the best, a keyword winner falls below what the model ranked last; over the range it does not', () => {
    // k wins keyword by far and is missing from the semantic list; s is a keyword also-ran that the
    // model put last of its list, 0.02 below its first (cosines of 0.80 to 0.82): divided by the
    // best, being last still earns s almost the full semantic share.
    const keyword: Array<[string, number]> = [
      ['k', 10],
      ['s', 4],
      ['t', 3],
    ];
    const semantic: Array<[string, number]> = [
      ['t', 0.82],
      ['u', 0.81],
      ['s', 0.8],
    ];
    const byBest = fuseByWeightedScore([list('keyword', 0.5, keyword), list('semantic', 0.5, semantic)]);
    expect(byBest.map((h) => h.fragmentId)).toEqual(['s', 't', 'k', 'u']);
    const byRange = fuseByWeightedScore([list('keyword', 0.5, keyword), list('semantic', 0.5, semantic, 'range')]);
    expect(byRange.map((h) => h.fragmentId)).toEqual(['t', 'k', 'u', 's']);
  });

  it("ranks the same whatever band the model's similarities sit in (any positive affine change)", () => {
    const ids = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { minLength: 1 });
    // Similarities in steps of 0.001 (distinct ones stay distinct after the change).
    const score = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
    fc.assert(
      fc.property(
        ids,
        ids,
        fc.array(score, { minLength: 8, maxLength: 8 }),
        fc.array(score, { minLength: 8, maxLength: 8 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        (keywordIds, semanticIds, keywordScores, semanticScores, stretch, floor) => {
          const keyword = keywordIds.map((id, i): [string, number] => [id, keywordScores[i]! * 10]);
          const semantic = semanticIds.map((id, i): [string, number] => [id, semanticScores[i]!]);
          // Every fused score is the same up to a rounding error, so the order is the same (ties
          // by id). Comparing rounded scores would fail when a score sits on a rounding boundary.
          const scores = (hits: Array<[string, number]>) =>
            new Map(
              fuseByWeightedScore([list('keyword', 0.5, keyword), list('semantic', 0.5, hits, 'range')]).map((h) => [
                h.fragmentId,
                h.score,
              ]),
            );
          const moved = scores(semantic.map(([id, s]): [string, number] => [id, floor + stretch * s]));
          const original = scores(semantic);
          expect([...moved.keys()].sort()).toEqual([...original.keys()].sort());
          for (const [id, score] of original) expect(Math.abs(moved.get(id)! - score)).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('semanticWeight', () => {
  it('trusts real embedding models more than the built-in word hashing, and a configured value most', () => {
    expect(semanticWeight(undefined, 'builtin')).toBe(0.2);
    expect(semanticWeight(undefined, 'openai')).toBe(0.4);
    expect(semanticWeight(0.7, 'builtin')).toBe(0.7);
    expect(semanticWeight(0, 'openai')).toBe(0);
  });
});
