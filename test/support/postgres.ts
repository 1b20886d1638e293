import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrismaClient, migrate, type ControlPrismaClient, type DataPrismaClient } from '@kw/platform-persistence';
import { TEST_DATABASE_URL } from './services.js';

type Plane = 'control' | 'data';

/** Creates an empty database on the test server; returns its URL and a drop function. */
export async function createTestDatabase(
  prefix = 'kw_test',
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL / DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        // A pool's `end()` resolves before the server has seen every session go; FORCE would kill
        // those closing sessions, and their clients (having no error listener by then) raise an
        // uncaught "terminating connection due to administrator command". Wait for them first.
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline) {
          const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface MigratedTestDatabase<P extends Plane> {
  url: string;
  pool: pg.Pool;
  /** A Prisma client on the pool, made when first read. */
  readonly prisma: P extends 'control' ? ControlPrismaClient : DataPrismaClient;
  /** Disconnects the client, ends the pool and drops the database. */
  close(): Promise<void>;
}

/**
 * A fresh database on the test server with one plane's migrations applied, for a repository's
 * spec on real Postgres: its pool (`maxConnections`), a Prisma client on it, and close().
 */
export async function migratedTestDatabase<P extends Plane>(
  prefix: string,
  plane: P,
  maxConnections = 4,
): Promise<MigratedTestDatabase<P>> {
  const database = await createTestDatabase(prefix);
  const pool = new pg.Pool({ connectionString: database.url, max: maxConnections });
  try {
    await migrate(pool, plane);
  } catch (err) {
    await pool.end();
    await database.drop();
    throw err;
  }
  let prisma: ControlPrismaClient | DataPrismaClient | undefined;
  return {
    url: database.url,
    pool,
    get prisma() {
      prisma ??= createPrismaClient(plane, pool);
      return prisma as MigratedTestDatabase<P>['prisma'];
    },
    close: async () => {
      await prisma?.$disconnect();
      await pool.end();
      await database.drop();
    },
  };
}

/**
 * Rows of every base table of a database whose text holds `needle`, as `schema.table: count`:
 * how a test proves that content never reached a plane (or was removed from it). Throws when
 * the database has too few tables to be one the platform migrated (a wrong connection).
 */
export async function tablesHolding(sql: pg.Client, needle: string): Promise<string[]> {
  const tables = await sql.query(
    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  if (tables.rows.length <= 10) throw new Error(`only ${tables.rows.length} tables: not a migrated platform database`);
  const holding: string[] = [];
  for (const t of tables.rows) {
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n FROM "${t.table_schema}"."${t.table_name}" AS r WHERE r::text LIKE $1`,
      [`%${needle}%`],
    );
    if (rows[0].n > 0) holding.push(`${t.table_schema}.${t.table_name}: ${rows[0].n}`);
  }
  return holding;
}
