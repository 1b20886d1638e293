import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { migrate } from '../src/migrations/migrate.js';
import { findPrismaDir } from '../src/migrations/prisma-dir.js';

const root = path.dirname(findPrismaDir());
const prismaCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('prisma/package.json')),
  'build',
  'index.js',
);

/**
 * Runs a node script and gathers its output. With `doneWhen`, the run ends as soon as the output
 * contains it: `prisma migrate deploy` prints its result and then idles about 10 s on a timer its
 * WASM schema engine leaves behind before it exits (Prisma's, not ours).
 */
function run(
  args: string[],
  env: Record<string, string> = {},
  doneWhen?: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, CHECKPOINT_DISABLE: '1', ...env },
    });
    let output = '';
    const collect = (d: Buffer) => {
      output += d;
      if (doneWhen && output.includes(doneWhen)) child.kill();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('Prisma tooling, offline', () => {
  it('has committed migrations that match both schema.prisma files', { timeout: 180_000 }, async () => {
    const results = await Promise.all(
      ['control', 'data'].map((plane) => run(['scripts/new-migration.mjs', plane, '--check'])),
    );
    for (const r of results) expect(r.code, r.output).toBe(0);
  });
});

describeWith(['postgres'], "Prisma CLI and the runner read each other's _prisma_migrations", () => {
  it('`prisma migrate status` finds every migration applied', { timeout: 120_000 }, async () => {
    const testDb = await createTestDatabase('kw_status');
    const pool = new pg.Pool({ connectionString: testDb.url });
    try {
      for (const plane of ['control', 'data'] as const) {
        await migrate(pool, plane);
        const status = await run([prismaCli, 'migrate', 'status', '--config', `prisma/${plane}/prisma.config.ts`], {
          KW_PRISMA_CLI_URL: testDb.url,
        });
        expect(status.output).toContain('Database schema is up to date!');
        expect(status.code).toBe(0);
      }
    } finally {
      await pool.end();
      await testDb.drop();
    }
  });

  it('the runner accepts what `prisma migrate deploy` applied', { timeout: 120_000 }, async () => {
    const testDb = await createTestDatabase('kw_deploy');
    const pool = new pg.Pool({ connectionString: testDb.url });
    try {
      const deploy = await run(
        [prismaCli, 'migrate', 'deploy', '--config', 'prisma/data/prisma.config.ts'],
        { KW_PRISMA_CLI_URL: testDb.url },
        'All migrations have been successfully applied.',
      );
      expect(deploy.output).toContain('All migrations have been successfully applied.');
      const report = await migrate(pool, 'data');
      expect(report.applied).toEqual([]);
      expect(report.alreadyApplied.length).toBeGreaterThan(0);
    } finally {
      await pool.end();
      await testDb.drop();
    }
  });
});
