import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient as ControlPrismaClient } from '../generated/control/client.js';
import { PrismaClient as DataPrismaClient } from '../generated/data/client.js';
import { PLANE_SCHEMAS, type Plane } from '../planes.js';
import { guardTransactions } from '../transaction-rule.js';
import { tracePrismaClient } from '../tracing/traced-database.js';

export { ControlPrismaClient, DataPrismaClient };

/**
 * A Prisma client of one plane over @prisma/adapter-pg (the Rust-free client: no engine
 * binary). The adapter's `schema` makes Prisma qualify every table with the plane's Postgres
 * schema, independent of search_path.
 *
 * Pass the process's pool (`database.pool`) to share its connections; embedded PGlite must
 * be used through that one pool (see EMBEDDED_POOL). A connection string gets the client its
 * own pool, ended by `$disconnect()`. A pool passed in stays open.
 */
export function createPrismaClient(plane: 'control', connection: string | pg.Pool): ControlPrismaClient;
export function createPrismaClient(plane: 'data', connection: string | pg.Pool): DataPrismaClient;
export function createPrismaClient(plane: Plane, connection: string | pg.Pool): ControlPrismaClient | DataPrismaClient;
export function createPrismaClient(plane: Plane, connection: string | pg.Pool): ControlPrismaClient | DataPrismaClient {
  const adapter = new PrismaPg(typeof connection === 'string' ? { connectionString: connection } : connection, {
    schema: PLANE_SCHEMAS[plane],
  });
  // Prisma's defaults (wait 2 s for a connection, 5 s per interactive transaction) fail under
  // load on the embedded database, where every transaction queues for its one connection.
  const transactionOptions = { maxWait: 30_000, timeout: 30_000 };
  // A span per operation while tracing is on (the client itself otherwise); transactions marked
  // for the transaction rule.
  return guardTransactions(
    plane === 'control'
      ? tracePrismaClient(new ControlPrismaClient({ adapter, transactionOptions }))
      : // search_length and tags_folded are generated for search (migrations search_bm25,
        // listing_tags_folded): never part of a row.
        tracePrismaClient(
          new DataPrismaClient({
            adapter,
            transactionOptions,
            omit: { fragment: { searchLength: true, tagsFolded: true } },
          }),
        ),
  );
}
