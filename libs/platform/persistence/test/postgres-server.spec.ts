import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBinaries } from '../src/embedded/postgres-server.js';
import { migrate } from '../src/migrations/migrate.js';
import { openDatabase, type Database } from '../src/open-database.js';
import { tempDir } from './fixtures.js';

const asRoot = process.getuid?.() === 0;

describe('embedded PostgreSQL server (the platform package’s binaries)', () => {
  const dir = tempDir('kw-pg-server');
  let db: Database | undefined;

  afterAll(async () => {
    await db?.close();
    dir.remove();
  });

  it('is the default where the binaries are installed: a socket-only server with a normal pool', async () => {
    expect(await postgresBinaries()).toBeDefined();
    db = await openDatabase({ dataDir: dir.path });
    expect(db.embedded).toBe('postgres');
    // A Unix socket in a private folder, no TCP listener.
    const socketDir = decodeURIComponent(new URL(db.connectionString).hostname);
    expect(socketDir.startsWith('/')).toBe(true);
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    const { rows } = await db.pool.query(
      `SELECT current_setting('listen_addresses') AS listen, current_setting('server_version_num')::int AS version`,
    );
    expect(rows[0].listen).toBe('');
    expect(rows[0].version).toBeGreaterThanOrEqual(180000);
    // A UTF-8 character type, as PGlite's: full-text search folds non-ASCII letters too.
    const { rows: words } = await db.pool.query(
      `SELECT to_tsvector('english', 'Über Straße') = to_tsvector('english', 'über straße') AS folded`,
    );
    expect(words[0].folded).toBe(true);
    expect(db.pool.options.max ?? 10).toBe(10);
    expect(existsSync(path.join(dir.path, 'postgres', 'PG_VERSION'))).toBe(true);
    // The role has a password, kept beside the cluster for this user only: the socket alone is not enough.
    expect(statSync(path.join(dir.path, 'postgres.password')).mode & 0o777).toBe(0o600);
    const withoutPassword = new pg.Client({
      host: socketDir,
      user: 'postgres',
      database: 'postgres',
      password: 'wrong',
    });
    await expect(withoutPassword.connect()).rejects.toThrow(/password authentication failed/);
    await withoutPassword.end().catch(() => undefined);
    expect((await migrate(db.pool, 'control')).applied.length).toBeGreaterThan(0);
    expect((await migrate(db.pool, 'data')).applied.length).toBeGreaterThan(0);
  });

  it('runs queries on several connections at once', async () => {
    const started = performance.now();
    await Promise.all([0, 1, 2, 3].map(() => db!.pool.query('SELECT pg_sleep(0.3)')));
    // Four 300 ms sleeps side by side, not one after another (1.2 s).
    expect(performance.now() - started).toBeLessThan(1100);
  });

  it('refuses a second platform on the same folder', async () => {
    await expect(openDatabase({ dataDir: dir.path })).rejects.toThrow(/in use by process/);
  });

  it('keeps data across a restart and applies nothing again', async () => {
    await db!.pool.query(`INSERT INTO control.installation (platform_version) VALUES ('9.9.9')`);
    await db!.close();
    db = await openDatabase({ dataDir: dir.path });
    expect(db.embedded).toBe('postgres');
    const { rows } = await db.pool.query('SELECT platform_version FROM control.installation');
    expect(rows).toEqual([{ platform_version: '9.9.9' }]);
    expect((await migrate(db.pool, 'control')).applied).toEqual([]);
  });

  it('stops a server left running by a process that was killed, then starts its own', async () => {
    await db!.close();
    db = undefined;
    // What a SIGKILLed platform leaves: its server, still running on the cluster.
    const dataPath = path.join(dir.path, 'postgres');
    const { uid, gid } = statSync(dataPath);
    const socketDir = mkdtempSync(path.join(tmpdir(), 'kw-pg-left-'));
    chmodSync(socketDir, 0o777);
    const leftover = spawn(
      (await postgresBinaries())!.postgres,
      ['-D', dataPath, '-k', socketDir, '-p', '5432', '-c', 'listen_addresses='],
      { stdio: 'ignore', detached: true, ...(asRoot && { uid, gid }) },
    );
    const exited = new Promise((resolve) => leftover.once('exit', resolve));
    await waitFor(() => existsSync(path.join(socketDir, '.s.PGSQL.5432')));

    try {
      db = await openDatabase({ dataDir: dir.path });
      await exited; // the leftover was shut down
      const { rows } = await db.pool.query('SELECT platform_version FROM control.installation');
      expect(rows).toEqual([{ platform_version: '9.9.9' }]);
    } finally {
      rmSync(socketDir, { recursive: true, force: true });
    }
  });

  it('keeps a data folder that holds a PGlite database on PGlite', async () => {
    const old = tempDir('kw-pg-old');
    try {
      const pglite = await openDatabase({ dataDir: old.path, engine: 'pglite' });
      await pglite.pool.query('CREATE TABLE kept (id int)');
      await pglite.close();
      const again = await openDatabase({ dataDir: old.path });
      try {
        expect(again.embedded).toBe('pglite');
        expect((await again.pool.query('SELECT count(*)::int AS n FROM kept')).rows).toEqual([{ n: 0 }]);
      } finally {
        await again.close();
      }
      expect(existsSync(path.join(old.path, 'postgres'))).toBe(false);
    } finally {
      old.remove();
    }
  });

  it.runIf(asRoot)('as root, says why when its account cannot enter DATA_DIR, and auto uses PGlite', async () => {
    const closed = tempDir('kw-pg-closed');
    chmodSync(closed.path, 0o700);
    try {
      await expect(openDatabase({ dataDir: closed.path, engine: 'postgres' })).rejects.toThrow(
        /cannot enter .*kw-pg-closed.*chmod o\+x/,
      );
      const fallback = await openDatabase({ dataDir: closed.path });
      try {
        expect(fallback.embedded).toBe('pglite');
      } finally {
        await fallback.close();
      }
    } finally {
      closed.remove();
    }
  });
});

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
