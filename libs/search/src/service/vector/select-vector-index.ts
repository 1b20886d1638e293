import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import type { Database } from '@kw/platform-persistence';
import { APP_CONFIG, DATABASE, LOGGER } from '@kw/platform-runtime';
import { SEARCH_DB, type SearchDb } from '../../persistence/search-database.js';
import { ExactCosineIndex } from '../../persistence/vectors/exact-cosine-index.js';
import { MemoryVectorIndex } from './memory-vector-index.js';
import { PgvectorIndex } from '../../persistence/vectors/pgvector-index.js';
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
 * a warning. pgvector, memory and exact read data.fragment_chunks: nothing to sync.
 */
/** `database`: the process's (never null here: SEARCH_DB refuses to start without one). */
export async function selectVectorIndex(
  config: AppConfig,
  db: SearchDb,
  logger: Logger,
  database: Database,
): Promise<VectorIndex> {
  const index = await chooseIndex(config, db, logger, database);
  logger.info({ vectorIndex: index.name }, 'search vector index selected');
  return index;
}

async function chooseIndex(config: AppConfig, db: SearchDb, logger: Logger, database: Database): Promise<VectorIndex> {
  if (config.QDRANT_URL) return new QdrantIndex(config.QDRANT_URL, db);
  const schema = await pgvectorSchema(db);
  if (schema) return new PgvectorIndex(db, schema);
  const exact = new ExactCosineIndex(db);
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
  return new MemoryVectorIndex(database.pool, Math.floor((config.VECTOR_MEMORY_MB * 1024 * 1024) / 4), exact);
}

/** The schema of the installed `vector` extension, installing it when available; null if neither. */
async function pgvectorSchema(db: SearchDb): Promise<string | null> {
  const installed = async () =>
    (
      await db.$queryRawUnsafe<{ schema: string }[]>(
        `SELECT n.nspname::text AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
      )
    )[0]?.schema ?? null;
  const existing = await installed();
  if (existing) return existing;
  const available = await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  if (available.length === 0) return null;
  // Needs CREATE on the database (a superuser in embedded mode); without it, fall back.
  await db.$executeRawUnsafe('CREATE EXTENSION IF NOT EXISTS vector').catch(() => undefined);
  return installed();
}

export const vectorIndexProvider = {
  provide: VECTOR_INDEX,
  useFactory: selectVectorIndex,
  inject: [APP_CONFIG, SEARCH_DB, LOGGER, DATABASE],
};

/** The writer side of the selected index: Qdrant itself, or nothing to write for pgvector / exact. */
export const vectorIndexSyncProvider = {
  provide: VECTOR_INDEX_SYNC,
  useFactory: (index: VectorIndex) => (isVectorIndexSync(index) ? index : IN_POSTGRES_SYNC),
  inject: [VECTOR_INDEX],
};
