/**
 * Driver adapter for the Prisma CLI's WASM schema engine (`engine: 'js'`). Prisma 6.19's
 * native schema engine must be downloaded, which this environment cannot do; the WASM one
 * talks to Postgres through a driver adapter.
 *
 * The database comes from KW_PRISMA_CLI_URL, the shadow database from
 * KW_PRISMA_CLI_SHADOW_URL. scripts/new-migration.mjs points both at throwaway in-memory
 * PGlite servers. Never give a real database as the shadow: it gets wiped and replayed into,
 * and @prisma/adapter-pg's own shadow code (CREATE DATABASE, then connect with the same
 * connection string) would even replay into the main database. Read-only commands may use a
 * real database: KW_PRISMA_CLI_URL=<url> prisma migrate status --config prisma/<plane>/prisma.config.ts
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

// Catalog types the adapter cannot map ("Column type 'name' could not be deserialized");
// the schema engine reads them as text.
const CATALOG_TEXT_TYPES = new Set([
  18 /* char */, 19 /* name */, 22 /* int2vector */, 24 /* regproc */, 28 /* xid */, 30 /* oidvector */,
  194 /* pg_node_tree */, 2205 /* regclass */, 2206 /* regtype */,
]);
const TEXT = 25;
const NAME_ARRAY = 1003;
const TEXT_ARRAY = 1009;

type Result = { fields?: { name: string; dataTypeID: number }[]; rows?: unknown[] };

function adapt<T>(result: T): T {
  for (const r of (Array.isArray(result) ? result : [result]) as Result[]) {
    const fields = r?.fields ?? [];
    for (const f of fields) {
      if (CATALOG_TEXT_TYPES.has(f.dataTypeID)) f.dataTypeID = TEXT;
      else if (f.dataTypeID === NAME_ARRAY) f.dataTypeID = TEXT_ARRAY;
    }
    // PGlite is Postgres 18, which lists NOT NULL as pg_constraint rows (contype 'n'); Prisma
    // 6.19's introspection panics on them ("unreachable"). NOT NULL is read from the columns.
    const contype = fields.findIndex((f) => f.name === 'constraint_type');
    if (contype >= 0 && Array.isArray(r.rows)) {
      r.rows = r.rows.filter(
        (row) => (Array.isArray(row) ? row[contype] : (row as Record<string, unknown>).constraint_type) !== 'n',
      );
    }
  }
  return result;
}

/** Makes a connection's results readable by the adapter; pg-pool queries with a callback, the adapter with promises. */
function adaptResults(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...a: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : adapt(res));
      return query(...args);
    }
    const out = query(...args) as { then?: unknown } | undefined;
    return out && typeof out.then === 'function' ? (out as Promise<unknown>).then(adapt) : out;
  }) as typeof client.query;
}

function poolFor(url: string, schema: string): pg.Pool {
  // The CLI never ends the pool: let idle connections close fast and not hold the process open.
  const pool = new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true, idleTimeoutMillis: 500 });
  pool.on('connect', (client) => {
    adaptResults(client);
    // Migrations are unqualified SQL run with search_path = the plane's schema (as the runner does).
    void client.query(`SET search_path TO "${schema}"`).catch(() => undefined);
  });
  return pool;
}

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/new-migration.mjs sets it to a throwaway PGlite database)`);
  return value;
}

/** The `adapter` of a plane's prisma.config.ts. */
export function cliAdapter(schema: string) {
  return async () => {
    const main = new PrismaPg(poolFor(requireEnv('KW_PRISMA_CLI_URL'), schema), { schema, disposeExternalPool: true });
    return {
      provider: main.provider,
      adapterName: main.adapterName,
      connect: () => main.connect(),
      connectToShadowDb: () =>
        new PrismaPg(poolFor(requireEnv('KW_PRISMA_CLI_SHADOW_URL'), schema), {
          schema,
          disposeExternalPool: true,
        }).connect(),
    };
  };
}
