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
 * given workspaces and never archived fragments. Adapters: pgvector, Qdrant, in-process
 * memory (reads Postgres), exact cosine in SQL.
 */
export interface VectorIndex {
  readonly name: 'pgvector' | 'qdrant' | 'memory' | 'exact';
  nearest(query: VectorQuery): Promise<VectorHit[]>;
}

export const VECTOR_INDEX = Symbol('VECTOR_INDEX');

/** One chunk of a fragment as stored in search_read.fragment_chunks (its current version). */
export interface IndexedChunk {
  /** fragment_chunks.ordinal */
  chunkIndex: number;
  vector: number[];
}

/**
 * The writer side of the port, fed by the search component's sync (fragment events and the
 * start-up backfill). `external` is false for the adapters that read search_read.fragment_chunks
 * themselves (pgvector, exact): nothing to write, the sync does nothing.
 */
export interface VectorIndexSync {
  readonly external: boolean;
  /** Replaces the fragment's points by these chunks (idempotent; no chunks = delete). */
  upsertFragment(workspaceId: string, fragmentId: string, version: number, chunks: IndexedChunk[]): Promise<void>;
  /** Drops every point of the fragment (idempotent). */
  deleteFragment(fragmentId: string): Promise<void>;
  /** Drops every point of the workspace (a moved workspace's copy removed; idempotent). */
  deleteWorkspace(workspaceId: string): Promise<void>;
  /** True when the index holds nothing at all (a new or wiped index: the sync state is stale). */
  isEmpty(): Promise<boolean>;
}

export const VECTOR_INDEX_SYNC = Symbol('VECTOR_INDEX_SYNC');

/** pgvector, memory and exact cosine read the chunks in Postgres: always in sync, nothing to write. */
export const IN_POSTGRES_SYNC: VectorIndexSync = {
  external: false,
  upsertFragment: async () => undefined,
  deleteFragment: async () => undefined,
  deleteWorkspace: async () => undefined,
  isEmpty: async () => false,
};

export function isVectorIndexSync(value: unknown): value is VectorIndexSync {
  return (
    !!value &&
    typeof value === 'object' &&
    'external' in value &&
    'upsertFragment' in value &&
    'deleteFragment' in value
  );
}

/** A query vector as a pgvector / float4[] literal. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
