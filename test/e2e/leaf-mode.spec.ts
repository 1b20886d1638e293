import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson } from '../support/http.js';
import { startApp, tempDir, type PlatformProcess } from '../support/processes.js';

/** The Leaf starts on its own database with the data-plane components only. */
describe('leaf', () => {
  const dataDir = tempDir('kw-leaf-');
  let leaf: PlatformProcess | undefined;

  afterAll(async () => {
    await leaf?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves health for its data-plane components and holds no control-plane tables', async () => {
    leaf = await startApp('leaf', { PORT: '0', DATA_DIR: dataDir });
    const res = await fetch(`${leaf.url}/api/health`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.components.map((c: { component: string }) => c.component).sort()).toEqual(['fragments', 'search', 'webhooks']);
    const planes = new Set(leaf.logs.filter((l) => l.msg === 'migrations up to date').map((l) => l.plane));
    expect([...planes]).toEqual(['data']);
    expect(await leaf.stop()).toBe(0);
    leaf = undefined;
  });
});
