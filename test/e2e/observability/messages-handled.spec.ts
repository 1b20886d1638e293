import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { untilPublished } from '../enrichment/enrichment-fixture.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

/** Reads one series of kw_messages_handled_total from the process's /metrics (0 when absent). */
async function handled(base: string, subject: RegExp, outcome: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const [, labels, value] of text.matchAll(/^kw_messages_handled_total\{([^}]*)\} (\d+)/gm)) {
    const found = Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (subject.test(found.subject ?? '') && found.outcome === outcome) total += Number(value);
  }
  return total;
}

/**
 * Operators read the messages a process handled off /metrics (docs/operations.md): requests
 * between components by subject, events by `events.<type>`, each by outcome.
 */
describeWith([], 'kw_messages_handled_total (embedded)', () => {
  const dataDir = tempDir('kw-metrics-');
  const admin = adminEnv();
  let platform: PlatformProcess;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, admin);
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts the requests components answer and the events their consumers handle, by outcome', async () => {
    const api = workspacesApi(platform.url);
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const workspace = await api.createWorkspace(token);
    const types = await api.ok(token, 'GET', `/api/workspaces/${workspace.id}/fragment-types`, undefined, 200);
    const fragmentTypeId = types.items.find((t: { key: string }) => t.key === 'note').id;
    const { fragment } = await api.ok(
      token,
      'POST',
      '/api/memory-fragments',
      { workspaceId: workspace.id, fragmentTypeId, title: 'Counted', content: 'A note the metrics count.' },
      201,
    );
    await untilPublished(() => api.call(token, 'GET', `/api/memory-fragments/${fragment.id}`));
    const missing = await api.call(token, 'GET', '/api/memory-fragments/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);

    await expect.poll(() => handled(platform.url, /^events\.fragment\.created$/, 'ok')).toBeGreaterThan(0);
    // Fragments' requests: the create answered, the unknown id refused (a 404 is the caller's).
    expect(await handled(platform.url, /fragments/i, 'ok')).toBeGreaterThan(0);
    expect(await handled(platform.url, /fragments/i, 'refused')).toBeGreaterThan(0);
    expect(await handled(platform.url, /./, 'failed')).toBe(0);
  });
});
