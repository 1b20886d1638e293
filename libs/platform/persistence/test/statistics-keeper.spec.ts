import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedServer } from '../src/embedded/embedded-server.js';
import { startPGliteServer } from '../src/embedded/pglite-server.js';
import { keepStatistics } from '../src/embedded/statistics-keeper.js';
import { EMBEDDED_POOL } from '../src/open-database.js';
import { migrate } from '../src/migrations/migrate.js';
import { silentLogger } from '../src/logger.js';
import { tempDir } from './fixtures.js';

const reltuples = async (pool: pg.Pool, table: string): Promise<number> =>
  (await pool.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass`, [table]))
    .rows[0].n;

describe('planner statistics on the embedded database (PGlite has no autovacuum)', () => {
  const dir = tempDir('kw-stats');
  let server: EmbeddedServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPGliteServer({ dataDir: dir.path });
    pool = new pg.Pool({ connectionString: server.connectionString, ...EMBEDDED_POOL });
    await migrate(pool, 'data');
    await pool.query('CREATE TABLE data.stats_probe (id int, body text)');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
    dir.remove();
  });

  it('analyses tables never analysed, then only those changed beyond 50 rows + 10%', async () => {
    const keeper = keepStatistics(pool, { logger: silentLogger, firstRunMs: 3_600_000, intervalMs: 3_600_000 });
    try {
      await pool.query(`INSERT INTO data.stats_probe SELECT g, md5(g::text) FROM generate_series(1, 2000) g`);
      expect(await reltuples(pool, 'data.stats_probe')).toBe(-1);

      const first = await keeper.tick();
      expect(first).toContain('data.stats_probe');
      expect(first).toContain('data.fragments');
      expect(await reltuples(pool, 'data.stats_probe')).toBe(2000);

      // Nothing changed: nothing to do.
      expect(await keeper.tick()).toEqual([]);

      // 100 rows is under 50 + 10% of 2,000; 300 more is over.
      await pool.query(`INSERT INTO data.stats_probe SELECT g, 'x' FROM generate_series(1, 100) g`);
      expect(await keeper.tick()).toEqual([]);
      await pool.query(`INSERT INTO data.stats_probe SELECT g, 'y' FROM generate_series(1, 300) g`);
      expect(await keeper.tick()).toEqual(['data.stats_probe']);
      expect(await reltuples(pool, 'data.stats_probe')).toBe(2400);
    } finally {
      await keeper.stop();
    }
  }, 60_000);
});
