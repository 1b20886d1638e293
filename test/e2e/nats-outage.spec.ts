import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson } from '../support/http.js';
import { startNatsProxy, type NatsProxy } from '../support/nats-proxy.js';
import { startApp, type PlatformProcess } from '../support/processes.js';
import { createTestDatabase } from '../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../support/services.js';

/**
 * One gateway process (distributed mode) whose NATS connection goes through a proxy the test
 * cuts: what an operator and a client see while a process has lost NATS.
 */
describeWith(['postgres', 'nats'], 'a process that loses NATS', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: NatsProxy;
  let gateway: PlatformProcess;

  beforeAll(async () => {
    db = await createTestDatabase('kw_nats_outage');
    proxy = await startNatsProxy(TEST_NATS_URL!);
    gateway = await startApp('gateway', {
      RUN_MODE: 'distributed',
      PORT: '0',
      DATABASE_URL: db.url,
      NATS_URL: proxy.url,
      NATS_SUBJECT_PREFIX: `t${randomBytes(4).toString('hex')}`,
    });
  }, 90_000);

  afterAll(async () => {
    proxy?.restore();
    await gateway?.stop();
    await proxy?.close();
    await db?.drop();
  }, 30_000);

  // Any authenticated route: the gateway asks agent-auth over NATS (which is not running here).
  const ask = () =>
    fetch(`${gateway.url}/api/workspaces/${randomUUID()}`, {
      headers: { authorization: `Bearer kw_pat_${'a'.repeat(40)}` },
    });

  it('is not ready while NATS is unreachable, fails calls at once with 503 naming NATS, and recovers', async () => {
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);

    proxy.cut();
    await expect.poll(async () => (await fetch(`${gateway.url}/readyz`)).status, { timeout: 10_000 }).toBe(503);
    const probe = await readJson(await fetch(`${gateway.url}/readyz`));
    expect(probe).toEqual({ status: 'nats-disconnected', disconnected: ['kw-gateway'] });

    const started = Date.now();
    const res = await ask();
    // Without a fast failure the request waits for SERVICE_TIMEOUT_MS (10 s) and answers 504.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(503);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('retry-after')).toBe('2');
    const body = await readJson(res);
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error).toContain('NATS');

    const health = await readJson(await fetch(`${gateway.url}/api/health`));
    expect(health.ready).toBe(false);
    expect(health.components[0].detail).toContain('NATS');

    proxy.restore();
    await expect.poll(async () => (await fetch(`${gateway.url}/readyz`)).status, { timeout: 15_000 }).toBe(200);
    expect(gateway.logs.some((l) => l.msg === 'NATS reconnected')).toBe(true);
  }, 60_000);
});

describeWith(['postgres'], 'a process started while NATS is unreachable', () => {
  it('logs that it waits for NATS (without credentials), then exits 1 so its supervisor restarts it', async () => {
    const db = await createTestDatabase('kw_nats_unreachable');
    try {
      // A port nothing listens on (the proxy is closed at once).
      const closed = await startNatsProxy('nats://127.0.0.1:1');
      const port = new URL(closed.url).port;
      await closed.close();
      const started = Date.now();
      const failure = await startApp('search', {
        RUN_MODE: 'distributed',
        METRICS_PORT: '0',
        DATABASE_URL: db.url,
        NATS_URL: `nats://kw:s3cret@127.0.0.1:${port}`,
        NATS_CONNECT_TIMEOUT_MS: '3000',
      }).catch((err: unknown) => err as Error);
      // Without the bound, the process waits for ever (startApp gives up after 60 s).
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toContain('exited with 1 before ready');
      expect(Date.now() - started).toBeLessThan(30_000);
      const text = (failure as Error).message;
      expect(text).toContain(`waiting for NATS at nats://127.0.0.1:${port}`);
      expect(text).toContain(`could not be reached`);
      expect(text).not.toContain('s3cret');
    } finally {
      await db.drop();
    }
  }, 90_000);
});
