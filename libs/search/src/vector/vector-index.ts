/** A fragment near the query vector: its best chunk's cosine similarity. */
export interface VectorHit {
  fragmentId: string;
  similarity: number;
}

export interface VectorQuery {
  /** Only these workspaces (already authorized by the caller of the port). */
  workspaceIds: string[];
  vector: number[];
  /** How many fragments at most, best first. */
  limit: number;
  /** Hits below this cosine similarity are not "about" the query. */
  minSimilarity: number;
}

/**
 * The vector index port: nearest fragments by their chunk embeddings, never outside the
 * given workspaces and never archived fragments. Adapters: pgvector, Qdrant, exact cosine.
 */
export interface VectorIndex {
  readonly name: 'pgvector' | 'qdrant' | 'exact';
  nearest(query: VectorQuery): Promise<VectorHit[]>;
}

export const VECTOR_INDEX = Symbol('VECTOR_INDEX');

/** A query vector as a pgvector / float4[] literal. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
