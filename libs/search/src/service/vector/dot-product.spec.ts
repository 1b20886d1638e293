import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestDot, queryVector, unit } from './dot-product.js';

/** A component that is zero most of the time, like a hashed-words embedding's. */
const component = (zeroShare: number) =>
  fc.oneof(
    { weight: Math.round(zeroShare * 10), arbitrary: fc.constant(0) },
    { weight: Math.round((1 - zeroShare) * 10), arbitrary: fc.float({ min: -1, max: 1, noNaN: true }) },
  );

describe('dot products of the in-process vector index', () => {
  it('reads a query with few non-zero components sparsely, and a dense one densely', () => {
    const sparse = queryVector(Float32Array.from([0, 0.6, 0, 0, 0, 0, 0.8, 0]));
    expect(Array.from(sparse.indices ?? [])).toEqual([1, 6]);
    expect(sparse.weights?.[1]).toBeCloseTo(0.8);
    expect(queryVector(Float32Array.from([0.5, 0.5, 0.5, 0.5])).indices).toBeUndefined();
  });

  it('gives the same best similarity either way, whatever the vectors', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((dim) =>
          fc.record({
            query: fc.array(component(0.8), { minLength: dim, maxLength: dim }),
            chunks: fc.array(fc.array(component(0.5), { minLength: dim, maxLength: dim }), {
              minLength: 1,
              maxLength: 5,
            }),
          }),
        ),
        ({ query, chunks }) => {
          const q = unit(Float32Array.from(query));
          const packed = Float32Array.from(
            chunks.flatMap((c) => Array.from(unit(Float32Array.from(c)) ?? c.map(() => 0))),
          );
          if (!q) return;
          const read = queryVector(q);
          const dense = bestDot(packed, { values: q });
          expect(bestDot(packed, read)).toBeCloseTo(dense, 5);
          const expected = Math.max(
            ...chunks.map((c) => {
              const v = unit(Float32Array.from(c));
              return v ? v.reduce((sum, x, i) => sum + x * q[i]!, 0) : 0;
            }),
          );
          expect(dense).toBeCloseTo(expected, 5);
        },
      ),
      { numRuns: 300 },
    );
  });
});
