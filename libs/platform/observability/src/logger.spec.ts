import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const built = fileURLToPath(new URL('../../../../dist/libs/platform/observability/src/logger.js', import.meta.url));

/**
 * Standard output is written without blocking (lines logged during a write go out with the
 * next): what the process logged before it exited must still all arrive, in order.
 */
describe('the logger on standard output', () => {
  it('writes every line logged before process.exit, in order', () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(built)});
      const logger = createLogger({ level: 'info', component: 'probe' });
      for (let i = 0; i < 5000; i++) logger.info({ i, password: 'hunter2' }, 'line');
      logger.fatal('last words');
      process.exit(3);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).toBe(3);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5001);
    expect(lines.slice(0, 5000).map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(lines[0]).toMatchObject({ level: 'info', component: 'probe', password: '[redacted]', msg: 'line' });
    expect(lines.at(-1)).toMatchObject({ level: 'fatal', msg: 'last words' });
  });
});
