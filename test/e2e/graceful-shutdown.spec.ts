import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { adminEnv } from '../support/accounts.js';
import { readJson } from '../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../support/processes.js';

/** SIGTERM drains: requests already in flight are answered, new ones are refused, exit code 0. */
describe('graceful shutdown', () => {
  const dataDir = tempDir('kw-shutdown-');
  let platform: PlatformProcess | undefined;

  afterAll(async () => {
    await platform?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers an in-flight request, then exits 0', async () => {
    platform = await startEmbedded(dataDir, {
      ...adminEnv(),
      DIAGNOSTICS_ENABLED: 'true',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    const inFlight = fetch(`${platform.url}/api/diagnostics/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ component: 'fragments', text: 'still answered', delayMs: 1500 }),
    });
    // Let the request reach the component before the signal.
    await new Promise((r) => setTimeout(r, 300));
    platform.child.kill('SIGTERM');

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await readJson(res)).toMatchObject({ text: 'still answered', servedBy: 'fragments' });
    expect(await platform.exited).toBe(0);
    expect(platform.logs.some((l) => l.msg === 'draining')).toBe(true);
    expect(platform.logs.some((l) => l.msg === 'stopped')).toBe(true);

    // Nothing listens any more.
    await expect(fetch(`${platform.url}/api/health`)).rejects.toThrow();
    platform = undefined;
  });
});
