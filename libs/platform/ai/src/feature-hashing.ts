import { contentWords } from './text-analysis.js';

export const BUILTIN_EMBEDDING_DIMENSION = 384;

/** 32-bit FNV-1a: stable across processes and versions (embeddings are stored). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function add(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  // The top bit chooses the sign so that collisions cancel out instead of piling up.
  vector[hash % vector.length] += hash & 0x80000000 ? -weight : weight;
}

/**
 * Feature-hashing embedding: words (weight 1) and their character trigrams (weight 0.5, so
 * "database" and "databases" stay close), L2-normalised. Deterministic, no model.
 */
export function hashEmbedding(text: string, dimension = BUILTIN_EMBEDDING_DIMENSION): number[] {
  const vector = new Float64Array(dimension);
  for (const word of contentWords(text)) {
    add(vector, `w:${word}`, 1);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, `c:${padded.slice(i, i + 3)}`, 0.5);
  }
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  return Array.from(vector, (v) => (norm > 0 ? v / norm : 0));
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
