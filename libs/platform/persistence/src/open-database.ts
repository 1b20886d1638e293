import pg from 'pg';
import { startEmbeddedPostgres } from './embedded/embedded-postgres.js';
import { keepStatistics } from './embedded/statistics-keeper.js';
import { type PersistenceLogger, silentLogger } from './logger.js';
import { guardPool } from './transaction-rule.js';
import { tracePool } from './tracing/traced-database.js';

/**
 * Pool settings over embedded PGlite: one connection, because all connections share PGlite's
 * single session (see embedded-postgres.ts). A caller that holds the connection in a
 * transaction and asks the pool for another fails after connectionTimeoutMillis instead of
 * hanging forever in pglite-socket's queue.
 */
export const EMBEDDED_POOL: Readonly<pg.PoolConfig> = { max: 1, idleTimeoutMillis: 0, connectionTimeoutMillis: 30_000 };

export interface OpenDatabaseOptions {
  /** Postgres URL. Without it the embedded PGlite in `<dataDir>/pg` is started. */
  databaseUrl?: string;
  dataDir: string;
  logger?: PersistenceLogger;
  /** Pool size with a databaseUrl (pg's default 10). The embedded pool is always 1. */
  poolSize?: number;
}

export interface Database {
  pool: pg.Pool;
  /** What the pool connects to: DATABASE_URL, or the embedded server's URL. */
  connectionString: string;
  embedded: boolean;
  /** Ends the pool, then stops the embedded server if there is one. Idempotent. */
  close(): Promise<void>;
}

/** The process's database: a pg.Pool on DATABASE_URL, or on an embedded PGlite. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  if (options.databaseUrl) {
    const pool = createPool({ connectionString: options.databaseUrl, max: options.poolSize }, logger);
    await checkReachable(pool, options.databaseUrl);
    logger.info({ database: redactUrl(options.databaseUrl) }, 'connected to Postgres');
    return { pool, connectionString: options.databaseUrl, embedded: false, close: once(() => pool.end()) };
  }
  const server = await startEmbeddedPostgres({ dataDir: options.dataDir, logger });
  const pool = createPool({ connectionString: server.connectionString, ...EMBEDDED_POOL }, logger);
  try {
    await checkReachable(pool, server.connectionString);
  } catch (err) {
    await server.stop();
    throw err;
  }
  const statistics = keepStatistics(pool, { logger });
  return {
    pool,
    connectionString: server.connectionString,
    embedded: true,
    close: once(async () => {
      await statistics.stop();
      await pool.end();
      await server.stop();
    }),
  };
}

function createPool(config: pg.PoolConfig, logger: PersistenceLogger): pg.Pool {
  // Queries of traced requests get spans (tracePool returns the pool untouched while tracing is off);
  // the guard refuses the pool inside a Prisma transaction (transaction-rule.ts).
  const pool = guardPool(tracePool(new pg.Pool(config)));
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err }, 'idle Postgres connection failed'));
  return pool;
}

async function checkReachable(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`Cannot connect to Postgres at ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
  }
}

/** The URL without its password, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable database URL)';
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
