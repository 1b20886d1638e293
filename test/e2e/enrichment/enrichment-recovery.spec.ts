import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { flakyOpenAiServer, untilPublished } from './enrichment-fixture.js';

/**
 * The embedded mode's bus lives in memory: a process killed while enrichment was under way
 * must still publish the fragment after a restart on the same data folder.
 */
describe('enrichment after the embedded process was killed', () => {
  const dataDir = tempDir('kw-recovery-');
  const admin = adminEnv();
  const unlimited = { RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ADDRESS: '1000000' };
  let platform: PlatformProcess | undefined;
  let ai: Awaited<ReturnType<typeof flakyOpenAiServer>> | undefined;

  afterAll(async () => {
    await platform?.stop();
    await ai?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes a fragment whose enrichment was interrupted by SIGKILL', async () => {
    // A provider that keeps failing, with long retry pauses: enrichment is surely under way when the process dies.
    ai = await flakyOpenAiServer();
    platform = await startEmbedded(dataDir, {
      ...admin,
      ...unlimited,
      AI_PROVIDER: 'openai',
      AI_BASE_URL: ai.url,
      AI_API_KEY: 'k',
      ENRICHMENT_MAX_ATTEMPTS: '10',
      ENRICHMENT_RETRY_BASE_MS: '5000',
    });
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    let api = workspacesApi(platform.url);
    const ws = await api.createWorkspace(token);
    const types = await api.ok(token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const typeId = types.items.find((t: { key: string }) => t.key === 'note').id;
    const { fragment } = await api.ok(
      token,
      'POST',
      '/api/memory-fragments',
      {
        workspaceId: ws.id,
        fragmentTypeId: typeId,
        title: 'Interrupted',
        content: 'Ada Lovelace wrote the first program for the Analytical Engine.',
      },
      201,
    );
    expect(fragment.status).toBe('processing');
    await expect.poll(() => ai!.calls(), { timeout: 10_000 }).toBeGreaterThan(0);

    platform.child.kill('SIGKILL');
    await platform.exited;

    // Same folder, the built-in provider this time.
    platform = await startEmbedded(dataDir, { ...admin, ...unlimited });
    api = workspacesApi(platform.url);
    const published = await untilPublished(() => api.call(token, 'GET', `/api/memory-fragments/${fragment.id}`));
    for (const step of ['summary', 'tags', 'embedding', 'graph'])
      expect(published.enrichment[step].state, step).toBe('done');
    expect(published.summary).toEqual(expect.any(String));
    expect(platform.logs.some((l) => l.msg === 'requeued enrichment of fragments the last run left processing')).toBe(
      true,
    );
  }, 90_000);
});
