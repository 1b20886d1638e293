import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { ChunkVectorsRepository } from '../../persistence/vectors/chunk-vectors.repository.js';
import { PgvectorIndex } from '../../persistence/vectors/pgvector-index.js';
import { MemoryVectorIndex } from './memory-vector-index.js';
import { QdrantIndex } from './qdrant-index.js';
import {
  IN_POSTGRES_SYNC,
  isVectorIndexSync,
  VECTOR_INDEX,
  VECTOR_INDEX_SYNC,
  type VectorIndex,
} from './vector-index.js';

/**
 * Picks the vector index at start-up: Qdrant when QDRANT_URL is set (fed from the
 * `fragment.embedded` / `fragment.deleted` events and a start-up backfill by
 * VectorIndexSyncWorker, see vector-sync.ts); otherwise pgvector when the `vector` extension
 * exists or can be created (always in embedded PGlite); otherwise the in-process memory index
 * (VECTOR_MEMORY_MB; exact cosine in Postgres when 0, or for a workspace over the budget), with
 * a warning. pgvector, memory and exact read search_read.fragment_chunks: nothing to sync.
 */
export async function selectVectorIndex(
  config: AppConfig,
  chunks: ChunkVectorsRepository,
  logger: Logger,
): Promise<VectorIndex> {
  const index = await chooseIndex(config, chunks, logger);
  const stored = index instanceof PgvectorIndex ? { storedVectors: index.storedVectors } : {};
  logger.info({ vectorIndex: index.name, ...stored }, 'search vector index selected');
  return index;
}

async function chooseIndex(config: AppConfig, chunks: ChunkVectorsRepository, logger: Logger): Promise<VectorIndex> {
  if (config.QDRANT_URL) return new QdrantIndex(config.QDRANT_URL, chunks);
  const schema = await chunks.pgvectorSchema();
  if (schema) return await chunks.pgvectorIndex(schema);
  const exact = chunks.exactIndex();
  if (config.VECTOR_MEMORY_MB === 0) {
    logger.warn(
      'search: the pgvector extension is not available, QDRANT_URL is unset and VECTOR_MEMORY_MB=0; ' +
        'semantic search uses exact cosine similarity in Postgres (slow on large workspaces)',
    );
    return exact;
  }
  logger.warn(
    { vectorMemoryMb: config.VECTOR_MEMORY_MB },
    'search: the pgvector extension is not available and QDRANT_URL is unset; semantic search keeps ' +
      'vectors in this process (each replica its own copy, read from Postgres)',
  );
  return new MemoryVectorIndex(chunks, Math.floor((config.VECTOR_MEMORY_MB * 1024 * 1024) / 4), exact);
}

export const vectorIndexProvider = {
  provide: VECTOR_INDEX,
  useFactory: selectVectorIndex,
  inject: [APP_CONFIG, ChunkVectorsRepository, LOGGER],
};

/** The writer side of the selected index: Qdrant itself, or nothing to write for pgvector / exact. */
export const vectorIndexSyncProvider = {
  provide: VECTOR_INDEX_SYNC,
  useFactory: (index: VectorIndex) => (isVectorIndexSync(index) ? index : IN_POSTGRES_SYNC),
  inject: [VECTOR_INDEX],
};
