import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { migrate } from '../src/migrations/migrate.js';
import { checksumOf, readMigrationFiles } from '../src/migrations/migration-files.js';
import { MigrationApplyError, MigrationChecksumError } from '../src/migrations/migration-errors.js';
import { addMigration, copyPrismaDir } from './fixtures.js';

type TestDb = Awaited<ReturnType<typeof createTestDatabase>>;

describeWith(['postgres'], 'migration runner on PostgreSQL', () => {
  let fixture: ReturnType<typeof copyPrismaDir>;
  let testDb: TestDb;
  let pool: pg.Pool;

  beforeAll(() => {
    fixture = copyPrismaDir();
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000000_slow_a',
      'SELECT pg_sleep(0.2); CREATE TABLE slow_a (id int);',
    );
    addMigration(
      fixture.prismaDir,
      'data',
      '29990101000001_slow_b',
      'SELECT pg_sleep(0.2); CREATE TABLE slow_b (id int);',
    );
  });
  afterAll(() => fixture.remove());
  beforeEach(async () => {
    testDb = await createTestDatabase('kw_migrate');
    pool = new pg.Pool({ connectionString: testDb.url, max: 2 });
  });
  afterEach(async () => {
    await pool.end();
    await testDb.drop();
  });

  const dataNames = () => readMigrationFiles('data', fixture.prismaDir).map((m) => m.name);

  it('applies both planes to an empty database, each in its own schema with its own _prisma_migrations', async () => {
    const control = await migrate(pool, 'control', { prismaDir: fixture.prismaDir });
    const data = await migrate(pool, 'data', { prismaDir: fixture.prismaDir });
    expect(control).toMatchObject({ plane: 'control', schema: 'control', alreadyApplied: [] });
    expect(control.applied).toEqual(readMigrationFiles('control', fixture.prismaDir).map((m) => m.name));
    expect(data.applied).toEqual(dataNames());

    const { rows } = await pool.query<{ schema: string; tables: string[] }>(
      `SELECT table_schema AS schema, array_agg(table_name::text ORDER BY table_name) AS tables FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') GROUP BY 1 ORDER BY 1`,
    );
    const tables = Object.fromEntries(rows.map((r) => [r.schema, r.tables]));
    // Nothing lands in public; search_read holds the data plane's read-contract views for search.
    expect(Object.keys(tables)).toEqual(['control', 'data', 'search_read']);
    expect(tables.control).toEqual(expect.arrayContaining(['_prisma_migrations', 'installation']));
    expect(tables.data).toEqual(expect.arrayContaining(['_prisma_migrations', 'outbox', 'slow_a', 'slow_b']));
    expect(tables.control).not.toContain('outbox');
    expect(tables.data).not.toContain('installation');
    for (const plane of ['control', 'data'] as const) {
      const { rows: recorded } = await pool.query(`SELECT migration_name FROM ${plane}._prisma_migrations ORDER BY 1`);
      expect(recorded.map((r) => r.migration_name)).toEqual(
        readMigrationFiles(plane, fixture.prismaDir).map((m) => m.name),
      );
    }
    const { rows: indexes } = await pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'data' AND indexname = 'outbox_unpublished_idx'`,
    );
    expect(indexes[0].indexdef).toMatch(/WHERE \(published_at IS NULL\)/);
  });

  it('writes _prisma_migrations rows as Prisma does', async () => {
    await migrate(pool, 'control', { prismaDir: fixture.prismaDir });
    const [file] = readMigrationFiles('control', fixture.prismaDir);
    const { rows } = await pool.query('SELECT * FROM control._prisma_migrations WHERE migration_name = $1', [
      file!.name,
    ]);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({
      migration_name: file!.name,
      checksum: file!.checksum,
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    });
    expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    expect(row.checksum).toBe(checksumOf(file!.sql));
    // Column types of Prisma's own table (Postgres flavour).
    const { rows: columns } = await pool.query(
      `SELECT column_name, data_type, character_maximum_length AS len, is_nullable FROM information_schema.columns WHERE table_schema = 'control' AND table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => `${c.column_name}:${c.data_type}${c.len ? `(${c.len})` : ''}:${c.is_nullable}`)).toEqual([
      'id:character varying(36):NO',
      'checksum:character varying(64):NO',
      'finished_at:timestamp with time zone:YES',
      'migration_name:character varying(255):NO',
      'logs:text:YES',
      'rolled_back_at:timestamp with time zone:YES',
      'started_at:timestamp with time zone:NO',
      'applied_steps_count:integer:NO',
    ]);
  });

  it('applies nothing on a second run and says so', async () => {
    await migrate(pool, 'data', { prismaDir: fixture.prismaDir });
    const messages: string[] = [];
    const logger = { info: (_: object, msg?: string) => void messages.push(msg ?? ''), warn: () => undefined };
    const again = await migrate(pool, 'data', { prismaDir: fixture.prismaDir, logger });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(dataNames());
    expect(messages).toEqual(['schema data is up to date: no data migration to apply']);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM data._prisma_migrations');
    expect(rows[0].n).toBe(dataNames().length);
  });

  it('applies each migration exactly once when two runners on separate pools start together', async () => {
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: testDb.url, max: 1 }));
    try {
      const reports = await Promise.all(pools.map((p) => migrate(p, 'data', { prismaDir: fixture.prismaDir })));
      // The lock makes one runner apply everything and the other find it all done.
      expect(reports.map((r) => r.applied.length).sort()).toEqual([0, dataNames().length]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    const { rows } = await pool.query(
      'SELECT migration_name, count(*)::int AS n FROM data._prisma_migrations GROUP BY 1 ORDER BY 1',
    );
    expect(rows).toEqual(dataNames().map((migration_name) => ({ migration_name, n: 1 })));
  });

  it('refuses to start when an applied migration was changed', async () => {
    const copy = copyPrismaDir();
    try {
      await migrate(pool, 'control', { prismaDir: copy.prismaDir });
      const [first] = readMigrationFiles('control', copy.prismaDir);
      appendFileSync(
        path.join(copy.prismaDir, 'control', 'migrations', first!.name, 'migration.sql'),
        '\nALTER TABLE installation ADD COLUMN sneaky int;\n',
      );
      const error = await migrate(pool, 'control', { prismaDir: copy.prismaDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationChecksumError);
      expect((error as Error).message).toContain(
        `Migration ${first!.name} of the control plane was modified after it was applied`,
      );
      const { rows } = await pool.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'installation' AND column_name = 'sneaky'`,
      );
      expect(rows).toEqual([]);
    } finally {
      copy.remove();
    }
  });

  it('still matches a migration whose line endings were converted to CRLF', async () => {
    const copy = copyPrismaDir();
    try {
      await migrate(pool, 'control', { prismaDir: copy.prismaDir });
      const [first] = readMigrationFiles('control', copy.prismaDir);
      const file = path.join(copy.prismaDir, 'control', 'migrations', first!.name, 'migration.sql');
      writeFileSync(file, first!.sql.replace(/\n/g, '\r\n'));
      expect((await migrate(pool, 'control', { prismaDir: copy.prismaDir })).applied).toEqual([]);
    } finally {
      copy.remove();
    }
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    const copy = copyPrismaDir();
    try {
      addMigration(
        copy.prismaDir,
        'control',
        '29990101000000_broken',
        'CREATE TABLE half_done (id int);\nSELECT no_such_function();\n',
      );
      const error = await migrate(pool, 'control', { prismaDir: copy.prismaDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationApplyError);
      expect((error as Error).message).toMatch(
        /29990101000000_broken of the control plane failed and was rolled back: function no_such_function\(\) does not exist/,
      );
      const { rows } = await pool.query(`SELECT migration_name FROM control._prisma_migrations ORDER BY 1`);
      expect(rows.map((r) => r.migration_name)).toEqual(
        readMigrationFiles('control', copy.prismaDir)
          .map((m) => m.name)
          .filter((n) => !n.endsWith('_broken')),
      );
      expect((await pool.query(`SELECT to_regclass('control.half_done') AS t`)).rows[0].t).toBeNull();
    } finally {
      copy.remove();
    }
  });
});
