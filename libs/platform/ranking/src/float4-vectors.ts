// Stored embeddings as the vector searches read them (the search component's in-process index,
// the files search): PostgreSQL's binary float4[] decoded, and scaled so cosine is a dot product.

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
 * A one-dimensional float4[] in PostgreSQL's binary array format (`array_send`): ndim,
 * has-nulls flag and element type, then per dimension its length and lower bound, then each
 * element as a 4-byte length (-1 for NULL, read as 0) and a big-endian float4.
 */
export function decodeFloat4Array(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float32Array(0);
  if (ndim !== 1) throw new Error(`expected a one-dimensional float4[], got ${ndim} dimensions`);
  const length = view.getInt32(12);
  const out = new Float32Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    const size = view.getInt32(offset);
    offset += 4;
    if (size === -1) continue;
    out[i] = view.getFloat32(offset);
    offset += size;
  }
  return out;
}
