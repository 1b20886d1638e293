import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { type PersistenceLogger, silentLogger } from '../logger.js';
import { lockDataDir } from './data-dir-lock.js';
import type { EmbeddedServer } from './embedded-server.js';

/**
 * pglite-socket 0.2.17 accepts up to `maxConnections` sockets (beyond that it writes "Too many
 * connections" and hangs up: pg reports "Connection terminated unexpectedly") and funnels
 * them all into PGlite's single session through one queue, a protocol message at a time;
 * while one connection is inside a transaction the others wait. So all connections share
 * session state (SET, search_path, advisory locks, prepared statement names, temp tables),
 * CancelRequest is ignored, and outside a transaction a message split across TCP reads
 * (a large query) may interleave with another connection's Parse/Bind. The platform therefore
 * uses one pool of one connection (EMBEDDED_POOL); the spare slots are for a Prisma client
 * given the connection string, psql while debugging, and the like.
 */
export const EMBEDDED_MAX_CONNECTIONS = 8;

export interface PGliteServerOptions {
  /** The platform's data folder; the database lives in `<dataDir>/pg`. */
  dataDir: string;
  logger?: PersistenceLogger;
  /** TCP port on 127.0.0.1; 0 (default) takes a free one. */
  port?: number;
}

/**
 * Starts PGlite (Postgres in WASM, with pgvector available to CREATE EXTENSION) on
 * `<dataDir>/pg` and serves it over the Postgres wire protocol on 127.0.0.1, so the rest of
 * the platform uses plain `pg` and Prisma exactly as with a real Postgres.
 */
export async function startPGliteServer(options: PGliteServerOptions): Promise<EmbeddedServer> {
  const logger = options.logger ?? silentLogger;
  const dataDir = path.resolve(options.dataDir);
  const dataPath = path.join(dataDir, 'pg');
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(path.join(dataDir, 'pg.lock'));
  let db: PGlite | undefined;
  let server: PGLiteSocketServer;
  try {
    db = await PGlite.create({ dataDir: dataPath, extensions: { vector } });
    server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: options.port ?? 0,
      maxConnections: EMBEDDED_MAX_CONNECTIONS,
    });
    await server.start();
  } catch (err) {
    await db?.close().catch(() => undefined);
    unlock();
    throw err;
  }
  const connectionString = `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  logger.info({ dataPath, address: server.getServerConn() }, 'embedded Postgres (PGlite) started');

  let stopping: Promise<void> | undefined;
  const pglite = db;
  return {
    connectionString,
    dataPath,
    stop: () =>
      (stopping ??= (async () => {
        try {
          await server.stop();
          await pglite.close();
        } finally {
          unlock();
        }
        logger.info({ dataPath }, 'embedded Postgres (PGlite) stopped');
      })()),
  };
}
