import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { SEARCH_DB, type SearchDb } from '../service/search-db.js';
import { ExactCosineIndex } from './exact-cosine-index.js';
import { PgvectorIndex } from './pgvector-index.js';
import { VECTOR_INDEX, type VectorIndex } from './vector-index.js';

/**
 * Picks the vector index at start-up: pgvector when the `vector` extension exists or can be
 * created (always in embedded PGlite); otherwise exact cosine in Postgres, with a warning.
 * The Qdrant adapter exists but nothing feeds it from fragment events yet, so it is not chosen
 * even with QDRANT_URL set: semantic search must find what enrichment embedded.
 */
export async function selectVectorIndex(config: AppConfig, db: SearchDb, logger: Logger): Promise<VectorIndex> {
  const index = await chooseIndex(config, db, logger);
  logger.info({ vectorIndex: index.name }, 'search vector index selected');
  return index;
}

async function chooseIndex(config: AppConfig, db: SearchDb, logger: Logger): Promise<VectorIndex> {
  if (config.QDRANT_URL) {
    logger.warn({ qdrant: config.QDRANT_URL }, 'search: QDRANT_URL is set but the Qdrant index is not fed from fragment events yet; semantic search reads the embeddings in Postgres');
  }
  const schema = await pgvectorSchema(db);
  if (schema) return new PgvectorIndex(db, schema);
  logger.warn('search: the pgvector extension is not available and QDRANT_URL is unset; semantic search uses exact cosine similarity in Postgres (slower on large workspaces)');
  return new ExactCosineIndex(db);
}

/** The schema of the installed `vector` extension, installing it when available; null if neither. */
async function pgvectorSchema(db: SearchDb): Promise<string | null> {
  const installed = async () => (await db.$queryRawUnsafe<{ schema: string }[]>(`SELECT n.nspname::text AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`))[0]?.schema ?? null;
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
  inject: [APP_CONFIG, SEARCH_DB, LOGGER],
};
