import type { SharedRateLimitStore } from './batched-rate-limit-store.js';
import type { WindowCount } from './rate-limit-store.js';

/** What the adapter needs from a database client; a `pg.Pool` or `pg.Client` fits. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount?: number | null }>;
}

export const DEFAULT_RATE_LIMIT_TABLE = 'rate_limit_counters';

/** `name` or `schema.name`, lower-case: quoted into SQL, so nothing else is accepted. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

function quotedTable(table: string): string {
  if (!TABLE_NAME.test(table)) throw new Error(`Invalid rate limit table name '${table}'`);
  return table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/**
 * The table the adapter uses. Times are epoch milliseconds in bigint columns: exact, and
 * the same numbers the limiter computes with. The index serves `prune`.
 */
export function rateLimitTableSql(table = DEFAULT_RATE_LIMIT_TABLE): string {
  const t = quotedTable(table);
  const indexName = `"${table.split('.').pop()}_window_ends_idx"`;
  return [
    `CREATE TABLE ${t} (`,
    `  key text PRIMARY KEY,`,
    `  hits integer NOT NULL,`,
    `  window_started_ms bigint NOT NULL,`,
    `  window_ends_ms bigint NOT NULL`,
    `);`,
    `CREATE INDEX ${indexName} ON ${t} (window_ends_ms);`,
  ].join('\n');
}

/**
 * Counters in one Postgres table, shared by every gateway replica. A hit is one atomic
 * statement: the insert opens a window for a new key; on conflict the row is locked and
 * updated in place, opening a new window if the old one has ended. Concurrent hits on one
 * key therefore queue on the row lock and each gets a distinct count, with no transaction
 * or retry loop. Replicas pass their own clock: a lagging one counts into the open window,
 * a leading one can open the next window early by its skew, never more.
 */
export class PostgresRateLimitStore implements SharedRateLimitStore {
  private readonly hitSql: string;
  private readonly hitManySql: string;
  private readonly pruneSql: string;

  constructor(
    private readonly db: SqlClient,
    options: { table?: string } = {},
  ) {
    const t = quotedTable(options.table ?? DEFAULT_RATE_LIMIT_TABLE);
    const ended = 'c.window_ends_ms <= EXCLUDED.window_started_ms';
    this.hitSql = `INSERT INTO ${t} AS c (key, hits, window_started_ms, window_ends_ms)
VALUES ($1, 1, $2::bigint, $2::bigint + $3::bigint)
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN ${ended} THEN 1 ELSE LEAST(c.hits + 1, 2147483647) END,
  window_started_ms = CASE WHEN ${ended} THEN EXCLUDED.window_started_ms ELSE c.window_started_ms END,
  window_ends_ms = CASE WHEN ${ended} THEN EXCLUDED.window_ends_ms ELSE c.window_ends_ms END
RETURNING hits, window_ends_ms`;
    // Several keys, each with a count of hits, in one statement (BatchedRateLimitStore).
    this.hitManySql = `INSERT INTO ${t} AS c (key, hits, window_started_ms, window_ends_ms)
SELECT k, LEAST(n, 2147483647), $3::bigint, $3::bigint + w FROM unnest($1::text[], $2::int[], $4::bigint[]) AS h(k, n, w)
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN ${ended} THEN EXCLUDED.hits ELSE LEAST(c.hits::bigint + EXCLUDED.hits, 2147483647)::int END,
  window_started_ms = CASE WHEN ${ended} THEN EXCLUDED.window_started_ms ELSE c.window_started_ms END,
  window_ends_ms = CASE WHEN ${ended} THEN EXCLUDED.window_ends_ms ELSE c.window_ends_ms END
RETURNING key, hits, window_ends_ms`;
    this.pruneSql = `DELETE FROM ${t} WHERE window_ends_ms <= $1::bigint`;
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    const { rows } = await this.db.query(this.hitSql, [key, Math.floor(nowMs), Math.floor(windowMs)]);
    const row = rows[0];
    // bigint arrives as a string from pg; epoch milliseconds are well within 2^53.
    return { hits: Number(row.hits), windowEndsAtMs: Number(row.window_ends_ms) };
  }

  async hitMany(
    hits: readonly { key: string; count: number; windowMs: number }[],
    nowMs: number,
  ): Promise<WindowCount[]> {
    if (hits.length === 0) return [];
    const { rows } = await this.db.query(this.hitManySql, [
      hits.map((h) => h.key),
      hits.map((h) => h.count),
      Math.floor(nowMs),
      hits.map((h) => Math.floor(h.windowMs)),
    ]);
    const byKey = new Map(
      rows.map((r) => [String(r.key), { hits: Number(r.hits), windowEndsAtMs: Number(r.window_ends_ms) }]),
    );
    return hits.map((h) => byKey.get(h.key)!);
  }

  async prune(nowMs: number): Promise<number> {
    const { rowCount } = await this.db.query(this.pruneSql, [Math.floor(nowMs)]);
    return rowCount ?? 0;
  }
}
