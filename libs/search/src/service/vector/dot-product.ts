/**
 * Cosine similarity as the in-process vector index computes it: vectors scaled to unit length
 * once, then dot products, sparse or dense by the query's shape.
 */

/** Scaled to unit length (cosine becomes a dot product); undefined for an empty or zero vector. */
export function unit(vector: Float32Array | undefined): Float32Array | undefined {
  if (!vector || vector.length === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/**
 * The largest dot product of `q` with the unit vectors packed in `vectors` (its length a
 * multiple of q's). A sparse query (the built-in provider's hashed words: a sentence sets about
 * a fifth of the components) reads only its non-zero components; a dense one (a model's) is
 * summed four at a time, which the JIT keeps in registers (about 1.6x a plain loop).
 */
export function bestDot(vectors: Float32Array, q: QueryVector): number {
  return q.indices ? bestSparseDot(vectors, q) : bestDenseDot(vectors, q.values);
}

/** A unit query vector, with the positions of its non-zero components when they are few. */
export interface QueryVector {
  values: Float32Array;
  indices?: Int32Array;
  /** `values` at `indices` (same length), so the sparse loop reads both sequentially. */
  weights?: Float32Array;
}

/** Below this share of non-zero components the sparse loop is faster (it reads memory out of order). */
const SPARSE_SHARE = 0.4;

export function queryVector(values: Float32Array): QueryVector {
  let nonZero = 0;
  for (let i = 0; i < values.length; i++) if (values[i] !== 0) nonZero++;
  if (nonZero > values.length * SPARSE_SHARE) return { values };
  const indices = new Int32Array(nonZero);
  const weights = new Float32Array(nonZero);
  for (let i = 0, k = 0; i < values.length; i++)
    if (values[i] !== 0) {
      indices[k] = i;
      weights[k++] = values[i]!;
    }
  return { values, indices, weights };
}

function bestSparseDot(vectors: Float32Array, q: QueryVector): number {
  const dim = q.values.length;
  const indices = q.indices!;
  const weights = q.weights!;
  const n = indices.length;
  let best = -Infinity;
  for (let base = 0; base < vectors.length; base += dim) {
    let dot = 0;
    for (let k = 0; k < n; k++) dot += vectors[base + indices[k]!]! * weights[k]!;
    if (dot > best) best = dot;
  }
  return best;
}

function bestDenseDot(vectors: Float32Array, q: Float32Array): number {
  const dim = q.length;
  const tail = dim - (dim % 4);
  let best = -Infinity;
  for (let base = 0; base < vectors.length; base += dim) {
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let i = 0; i < tail; i += 4) {
      a += vectors[base + i]! * q[i]!;
      b += vectors[base + i + 1]! * q[i + 1]!;
      c += vectors[base + i + 2]! * q[i + 2]!;
      d += vectors[base + i + 3]! * q[i + 3]!;
    }
    for (let i = tail; i < dim; i++) a += vectors[base + i]! * q[i]!;
    const dot = a + b + c + d;
    if (dot > best) best = dot;
  }
  return best;
}
