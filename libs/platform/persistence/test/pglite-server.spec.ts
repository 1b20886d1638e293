import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_POOL, openDatabase, type Database } from '../src/open-database.js';
import { startPGliteServer } from '../src/embedded/pglite-server.js';
import { migrate } from '../src/migrations/migrate.js';
import { readMigrationFiles } from '../src/migrations/migration-files.js';
import { addMigration, copyPrismaDir, tempDir } from './fixtures.js';

async function tablesBySchema(db: Database): Promise<Record<string, string[]>> {
  const { rows } = await db.pool.query<{ schema: string; tables: string[] }>(
    `SELECT table_schema AS schema, array_agg(table_name::text ORDER BY table_name) AS tables FROM information_schema.tables WHERE table_schema IN ('control', 'data') GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.schema, r.tables]));
}

describe('embedded Postgres (PGlite over pglite-socket)', () => {
  const dir = tempDir('kw-embedded');
  const fixture = copyPrismaDir();
  let db: Database;

  beforeAll(async () => {
    // Extra migrations that take a moment, so concurrent runners really overlap.
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000000_slow_a',
      'SELECT pg_sleep(0.1); CREATE TABLE slow_a (id int);',
    );
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000001_slow_b',
      'SELECT pg_sleep(0.1); CREATE TABLE slow_b (id int);',
    );
    db = await openDatabase({ dataDir: dir.path, engine: 'pglite' });
  });
  afterAll(async () => {
    await db?.close();
    dir.remove();
    fixture.remove();
  });

  it('serves PGlite with pgvector to a plain pg pool of one connection', async () => {
    expect(db.embedded).toBe('pglite');
    expect(db.connectionString).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
    expect(db.pool.options.max).toBe(EMBEDDED_POOL.max);
    await db.pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    const { rows } = await db.pool.query(`SELECT '[1,2,3]'::vector <-> '[1,2,5]'::vector AS distance`);
    expect(rows[0].distance).toBe(2);
  });

  it('applies both planes into their own schemas, then nothing on a second run', async () => {
    const [control, data] = [
      await migrate(db.pool, 'control', { prismaDir: fixture.prismaDir }),
      await migrate(db.pool, 'data', { prismaDir: fixture.prismaDir }),
    ];
    expect(control.applied).toEqual(readMigrationFiles('control', fixture.prismaDir).map((m) => m.name));
    expect(data.applied).toEqual(readMigrationFiles('data', fixture.prismaDir).map((m) => m.name));
    const tables = await tablesBySchema(db);
    expect(tables.control).toEqual(expect.arrayContaining(['_prisma_migrations', 'installation']));
    expect(tables.data).toEqual(expect.arrayContaining(['_prisma_migrations', 'outbox', 'slow_a', 'slow_b']));
    expect(tables.control).not.toContain('outbox');
    expect(tables.data).not.toContain('installation');
    const again = await migrate(db.pool, 'data', { prismaDir: fixture.prismaDir });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(data.applied);
  });

  it('applies each migration once when two migration runs start at the same time', async () => {
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000002_slow_c',
      'SELECT pg_sleep(0.2); CREATE TABLE slow_c (id int);',
    );
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000003_slow_d',
      'SELECT pg_sleep(0.2); CREATE TABLE slow_d (id int);',
    );
    // Both runs go through the platform's one pool of one connection, as in the product. Two
    // connections are never used on PGlite: they share its one session, and their extended-
    // protocol messages interleave ("unnamed prepared statement does not exist", seen in CI).
    const reports = await Promise.all([0, 1].map(() => migrate(db.pool, 'data', { prismaDir: fixture.prismaDir })));
    expect([...reports[0]!.applied, ...reports[1]!.applied].sort()).toEqual([
      '29990101000002_slow_c',
      '29990101000003_slow_d',
    ]);
    const { rows } = await db.pool.query(
      `SELECT migration_name, count(*)::int AS n FROM data._prisma_migrations GROUP BY 1 HAVING count(*) <> 1`,
    );
    expect(rows).toEqual([]);
  });

  it('refuses a second server on the same folder', async () => {
    await expect(startPGliteServer({ dataDir: dir.path })).rejects.toThrow(/in use by process/);
  });

  it('keeps data across a restart on the same folder and re-applies nothing', async () => {
    await db.pool.query(`INSERT INTO control.installation (platform_version) VALUES ('1.2.3')`);
    await db.close();
    db = await openDatabase({ dataDir: dir.path, engine: 'pglite' });
    const { rows } = await db.pool.query('SELECT platform_version FROM control.installation');
    expect(rows).toEqual([{ platform_version: '1.2.3' }]);
    expect((await migrate(db.pool, 'control', { prismaDir: fixture.prismaDir })).applied).toEqual([]);
    expect((await migrate(db.pool, 'data', { prismaDir: fixture.prismaDir })).applied).toEqual([]);
    const ext = await db.pool.query(`SELECT extname FROM pg_extension WHERE extname = 'vector'`);
    expect(ext.rowCount).toBe(1);
  });
});
