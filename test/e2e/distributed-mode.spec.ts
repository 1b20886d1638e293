import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson } from '../support/http.js';
import { startDistributed, type DistributedPlatform } from '../support/distributed.js';
import { createTestDatabase } from '../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../support/services.js';

describeWith(['postgres', 'nats'], 'distributed mode (every app its own process, real NATS and Postgres)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;

  beforeAll(async () => {
    db = await createTestDatabase('kw_dist');
    platform = await startDistributed({ DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL!, SERVICE_TIMEOUT_MS: '1500' });
  }, 120_000);

  afterAll(async () => {
    if (platform) expect(await platform.stop()).toBe(0);
    await db?.drop();
  }, 60_000);

  it('answers gateway -> NATS -> service -> Postgres and back, with the request id in both logs', async () => {
    const requestId = `dist-${Date.now()}`;
    const res = await fetch(`${platform.url}/api/health`, { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.runMode).toBe('distributed');
    expect(body.components).toHaveLength(7);
    expect(body.ready).toBe(true);
    for (const c of body.components) {
      // No model provider is configured: chat is `degraded` (an optional feature), not unready.
      expect(c.status, c.component).toBe(c.component === 'chat' ? 'degraded' : 'ok');
      expect(c.dependencies).toContainEqual(expect.objectContaining({ name: 'postgres', ok: true }));
    }
    await expect
      .poll(() => new Set(platform.logs.filter((l) => l.reqId === requestId).map((l) => l.component)))
      .toEqual(new Set(['gateway', 'workspaces', 'agent-auth', 'chat', 'fragments', 'files', 'search', 'webhooks']));
    // Each component ran in its own process.
    const pids = new Set(platform.logs.filter((l) => l.reqId === requestId).map((l) => l.pid));
    expect(pids.size).toBe(8);
  });

  it('applied every migration exactly once although all services started at once', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const schema of ['control', 'data']) {
        const { rows } = await client.query(
          `SELECT migration_name, count(*)::int AS n FROM "${schema}"._prisma_migrations GROUP BY migration_name`,
        );
        expect(rows.length, schema).toBeGreaterThan(0);
        for (const row of rows) expect(row.n, `${schema}/${row.migration_name}`).toBe(1);
      }
    } finally {
      await client.end();
    }
  });

  it('answers 503 within a bounded time when a service is killed, and recovers when it returns', async () => {
    const pid = platform.pidOf('fragments')!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');

    const started = Date.now();
    let down: Response | undefined;
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${platform.url}/api/health/fragments`);
      if (res.status !== 200) {
        down = res;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(down, 'the gateway kept answering 200 for a dead service').toBeDefined();
    expect([503, 504]).toContain(down!.status);
    expect(Date.now() - started).toBeLessThan(3_000);
    const body = await readJson(down!);
    expect(['SERVICE_UNAVAILABLE', 'SERVICE_TIMEOUT']).toContain(body.code);

    const overall = await fetch(`${platform.url}/api/health`);
    if (overall.status === 503) {
      const detail = await readJson(overall);
      expect(detail.components.find((c: { component: string }) => c.component === 'fragments').status).toBe(
        'unavailable',
      );
    }

    // run-distributed restarts the app; the gateway recovers without a restart of its own.
    await expect
      .poll(async () => (await fetch(`${platform.url}/api/health/fragments`)).status, {
        timeout: 20_000,
        interval: 200,
      })
      .toBe(200);
    expect(platform.pidOf('fragments')).not.toBe(pid);
    expect((await fetch(`${platform.url}/api/health`)).status).toBe(200);
  }, 40_000);
});
