import pg from 'pg';
import type { PersistenceLogger } from '../logger.js';
import { PLANE_SCHEMAS } from '../planes.js';

/**
 * Planner statistics for the embedded database. PGlite has no autovacuum, so without this no
 * table is ever analysed: `reltuples` stays -1, the planner guesses, and it ignores indexes that
 * matter (the full-text index: a keyword search recomputed every fragment's document, about 2 s
 * at 5,000 fragments, against 9 ms once analysed). The keeper does what autovacuum's analyse
 * would: a table never analysed, or changed by more than 50 rows + 10% since its last analyse
 * (autovacuum's default threshold), is analysed, shortly after start and then periodically.
 * Postgres proper has autovacuum; the keeper runs only on the embedded database.
 */
export interface StatisticsKeeper {
  /** Analyses the tables that need it now; resolves to their qualified names. Never rejects. */
  tick(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface StatisticsKeeperOptions {
  logger: PersistenceLogger;
  /** First run after start (migrations are usually done by then; a table created later waits a period). */
  firstRunMs?: number;
  intervalMs?: number;
}

const STALE_TABLES = `
SELECT s.schemaname AS schema, s.relname AS name
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = ANY($1) AND (c.reltuples < 0 OR s.n_mod_since_analyze > 50 + 0.1 * c.reltuples)
ORDER BY 1, 2`;

export function keepStatistics(pool: pg.Pool, options: StatisticsKeeperOptions): StatisticsKeeper {
  const schemas = Object.values(PLANE_SCHEMAS);
  let running: Promise<string[]> | undefined;
  let stopped = false;

  const analyse = async (): Promise<string[]> => {
    // PGlite's one backend publishes its counters only at a forced flush (there is no idle flush).
    await pool.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await pool.query<{ schema: string; name: string }>(STALE_TABLES, [schemas]);
    const done: string[] = [];
    for (const { schema, name } of rows) {
      if (stopped) break;
      const table = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
      await pool.query(`ANALYZE ${table}`);
      done.push(`${schema}.${name}`);
    }
    return done;
  };

  const tick = (): Promise<string[]> =>
    (running ??= analyse()
      .catch((err: unknown) => {
        if (!stopped) options.logger.warn({ err }, 'analysing embedded tables failed; the next period retries');
        return [];
      })
      .finally(() => (running = undefined)));

  const first = setTimeout(() => void tick(), options.firstRunMs ?? 5_000);
  const every = setInterval(() => void tick(), options.intervalMs ?? 60_000);
  first.unref();
  every.unref();
  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
