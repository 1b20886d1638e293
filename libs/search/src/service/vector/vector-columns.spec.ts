import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorColumns } from './vector-columns.js';

const DIM = 6;
/** A chunk vector, zero in most components some of the time (like hashed words). */
const chunk = fc.array(fc.oneof(fc.constant(0), fc.float({ min: -1, max: 1, noNaN: true })), {
  minLength: DIM,
  maxLength: DIM,
});
/** What a sequence of holds and removals does to a fragment: its chunks, or removal. */
const operation = fc.record({
  fragment: fc.integer({ min: 0, max: 12 }),
  chunks: fc.option(fc.array(chunk, { minLength: 1, maxLength: 3 }), { nil: undefined }),
});

function best(chunks: number[][], q: number[]): number {
  return Math.max(...chunks.map((c) => c.reduce((sum, x, i) => sum + x * q[i]!, 0)));
}

function scanned(columns: VectorColumns, q: number[], threshold: number): Map<string, number> {
  const found = new Map<string, number>();
  columns.scan(Float32Array.from(q), threshold, (id, similarity) => {
    expect(found.has(id), `${id} visited twice`).toBe(false);
    found.set(id, similarity);
  });
  return found;
}

describe('VectorColumns (chunk vectors stored column by column)', () => {
  it('finds what a row-by-row scan finds, through any holds, replacements and removals', () => {
    fc.assert(
      fc.property(
        fc.array(operation, { maxLength: 60 }),
        chunk,
        fc.constantFrom(-1, 0, 0.3),
        (operations, q, threshold) => {
          const columns = new VectorColumns(DIM);
          const expected = new Map<string, number[][]>();
          for (const { fragment, chunks } of operations) {
            const id = `f${fragment}`;
            if (chunks) {
              columns.set(id, Float32Array.from(chunks.flat()));
              // What the columns hold is float32, like the packed vectors.
              expected.set(
                id,
                chunks.map((c) => Array.from(Float32Array.from(c))),
              );
            } else {
              columns.remove(id);
              expected.delete(id);
            }
          }
          const qf = Array.from(Float32Array.from(q));
          const want = new Map(
            [...expected].map(([id, chunks]) => [id, best(chunks, qf)] as const).filter(([, s]) => s >= threshold),
          );
          const got = scanned(columns, q, threshold);
          expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
          for (const [id, similarity] of want) expect(got.get(id)).toBeCloseTo(similarity, 9);
          expect(columns.fragments).toBe(expected.size);
          expect(columns.chunks).toBe([...expected.values()].reduce((n, c) => n + c.length, 0));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reclaims the slots of removed fragments once they are a quarter of all, keeping the rest intact', () => {
    const columns = new VectorColumns(2);
    for (let i = 0; i < 600; i++) columns.set(`f${i}`, Float32Array.from([1, i / 600, 0.5, 0.5]));
    for (let i = 0; i < 600; i += 2) columns.remove(`f${i}`);
    columns.set('f1', Float32Array.from([0, 1]));
    const found = scanned(columns, [0, 1], -Infinity);
    expect(found.size).toBe(300);
    expect(found.get('f1')).toBeCloseTo(1);
    expect(found.get('f599')).toBeCloseTo(599 / 600, 6);
    expect(columns.chunks).toBe(299 * 2 + 1);
  });

  it('refuses vectors that are not whole chunks of its dimension', () => {
    expect(() => new VectorColumns(3).set('f', new Float32Array(4))).toThrow('not chunks of 3');
  });
});
