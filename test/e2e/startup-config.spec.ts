import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

/** A bad configuration stops the process at once, naming every offending variable. */
describe('start-up configuration', () => {
  it('exits 2 with a message naming each bad variable', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', RUN_MODE: 'distributed', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Invalid configuration');
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'NATS_URL']) expect(run.stderr).toContain(`${name}:`);
    expect(run.stdout).toBe('');
  });

  it('refuses a component the binary does not have', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/fragments/src/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TARGETS: 'search' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('TARGETS names components this binary does not have: search');
  });
});
