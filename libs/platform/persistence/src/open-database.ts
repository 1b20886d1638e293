import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { EmbeddedServer } from './embedded/embedded-server.js';
import { startPGliteServer } from './embedded/pglite-server.js';
import { SERVER_DATA_FOLDER, postgresBinaries, startPostgresServer } from './embedded/postgres-server.js';
import { keepStatistics } from './embedded/statistics-keeper.js';
import { type PersistenceLogger, silentLogger } from './logger.js';
import { guardPool } from './transaction-rule.js';
import { tracePool } from './tracing/traced-database.js';

/**
 * The database of the embedded mode (EMBEDDED_DATABASE): `postgres`, a PostgreSQL server from
 * the platform package's binaries; `pglite`, PGlite; `auto` (default), the server where this
 * machine has the binaries, PGlite otherwise, and always the engine of a data folder that holds
 * only the other's cluster (docs/configuration.md).
 */
export const EMBEDDED_ENGINES = ['auto', 'postgres', 'pglite'] as const;
export type EmbeddedEngine = (typeof EMBEDDED_ENGINES)[number];

/**
 * Pool settings over embedded PGlite: one connection, because all connections share PGlite's
 * single session (see embedded-postgres.ts). A caller that holds the connection in a
 * transaction and asks the pool for another fails after connectionTimeoutMillis instead of
 * hanging forever in pglite-socket's queue.
 */
export const EMBEDDED_POOL: Readonly<pg.PoolConfig> = { max: 1, idleTimeoutMillis: 0, connectionTimeoutMillis: 30_000 };

export interface OpenDatabaseOptions {
  /** Postgres URL. Without it an embedded server on `dataDir` is started (see `engine`). */
  databaseUrl?: string;
  dataDir: string;
  /** Which embedded server, without a databaseUrl; default `auto`. */
  engine?: EmbeddedEngine;
  logger?: PersistenceLogger;
  /** Pool size with a databaseUrl or the embedded PostgreSQL (pg's default 10). PGlite's pool is always 1. */
  poolSize?: number;
}

export interface Database {
  pool: pg.Pool;
  /** What the pool connects to: DATABASE_URL, or the embedded server's URL. */
  connectionString: string;
  /** The embedded server, when the platform runs one. */
  embedded?: 'postgres' | 'pglite';
  /** Ends the pool, then stops the embedded server if there is one. Idempotent. */
  close(): Promise<void>;
  /**
   * Stops the embedded server, if there is one, without waiting for the pool's clients to be
   * released (a drain that ran out of time may still hold them): its data safe on disk and its
   * DATA_DIR lock released. Idempotent, and harmless beside `close`.
   */
  stopServer(): Promise<void>;
}

/** The process's database: a pg.Pool on DATABASE_URL, or on an embedded server. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  if (options.databaseUrl) {
    const pool = createPool({ connectionString: options.databaseUrl, max: options.poolSize }, logger);
    await checkReachable(pool, options.databaseUrl);
    logger.info({ database: redactUrl(options.databaseUrl) }, 'connected to Postgres');
    return {
      pool,
      connectionString: options.databaseUrl,
      close: once(() => pool.end()),
      stopServer: () => Promise.resolve(),
    };
  }
  const { engine, server } = await startEmbedded(options, logger);
  const pool = createPool(
    { connectionString: server.connectionString, ...(engine === 'pglite' ? EMBEDDED_POOL : { max: options.poolSize }) },
    logger,
  );
  try {
    await checkReachable(pool, server.connectionString);
  } catch (err) {
    await server.stop();
    throw err;
  }
  // PGlite has no autovacuum; the server has its own.
  const statistics = engine === 'pglite' ? keepStatistics(pool, { logger }) : undefined;
  return {
    pool,
    connectionString: server.connectionString,
    embedded: engine,
    close: once(async () => {
      await statistics?.stop();
      await pool.end();
      await server.stop();
    }),
    stopServer: () => server.stop(),
  };
}

/** The embedded server `options.engine` asks for (see EMBEDDED_ENGINES). */
async function startEmbedded(
  options: OpenDatabaseOptions,
  logger: PersistenceLogger,
): Promise<{ engine: 'postgres' | 'pglite'; server: EmbeddedServer }> {
  const requested = options.engine ?? 'auto';
  const pglite = () => startPGliteServer({ dataDir: options.dataDir, logger });
  if (requested === 'pglite') return { engine: 'pglite', server: await pglite() };
  const binaries = await postgresBinaries();
  const serverCluster = existsSync(path.join(options.dataDir, SERVER_DATA_FOLDER, 'PG_VERSION'));
  const pgliteCluster = existsSync(path.join(options.dataDir, 'pg', 'PG_VERSION'));
  if (requested === 'postgres') {
    if (!binaries)
      throw new Error(
        `EMBEDDED_DATABASE=postgres, but no PostgreSQL binaries for ${process.platform}-${process.arch} are installed (the optional package @embedded-postgres/<os>-<cpu>).`,
      );
    return { engine: 'postgres', server: await startPostgresServer({ dataDir: options.dataDir, binaries, logger }) };
  }
  // auto: a folder made by PGlite stays on PGlite, so its data is never left behind.
  if (pgliteCluster && !serverCluster) {
    logger.info(
      { dataDir: options.dataDir },
      'embedded database: this data folder holds a PGlite database, kept on PGlite',
    );
    return { engine: 'pglite', server: await pglite() };
  }
  if (!binaries) {
    if (serverCluster)
      throw new Error(
        `${options.dataDir} holds a PostgreSQL cluster, and this machine has no PostgreSQL binaries for ${process.platform}-${process.arch}.`,
      );
    logger.info(
      { platform: `${process.platform}-${process.arch}` },
      'embedded database: no PostgreSQL binaries for this platform, using PGlite',
    );
    return { engine: 'pglite', server: await pglite() };
  }
  try {
    return { engine: 'postgres', server: await startPostgresServer({ dataDir: options.dataDir, binaries, logger }) };
  } catch (err) {
    // A server that never held data (no cluster was created) may give way to PGlite; one that did must not.
    if (serverCluster || existsSync(path.join(options.dataDir, SERVER_DATA_FOLDER, 'PG_VERSION'))) throw err;
    logger.warn({ err }, 'embedded database: the PostgreSQL server did not start, using PGlite');
    return { engine: 'pglite', server: await pglite() };
  }
}

function createPool(config: pg.PoolConfig, logger: PersistenceLogger): pg.Pool {
  // Queries of traced requests get spans (tracePool returns the pool untouched while tracing is off);
  // the guard refuses the pool inside a Prisma transaction (transaction-rule.ts).
  const pool = guardPool(tracePool(new pg.Pool(config)));
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err }, 'idle Postgres connection failed'));
  // Nor one checked out (the embedded server stopped under a running query at a drain that timed
  // out, a failover): it emits 'error' too, which the pool listens for only while the client is
  // idle. Its query fails with the error; the pool reports the idle ones above.
  pool.on('connect', (client) => client.on('error', () => undefined));
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
