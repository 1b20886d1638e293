import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../support/accounts.js';
import { readJson } from '../support/http.js';
import { startDistributed, type DistributedPlatform } from '../support/distributed.js';
import { createTestDatabase } from '../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../support/services.js';
import { workspacesApi } from './workspaces/workspaces-api.js';

describeWith(['postgres', 'nats'], 'distributed mode (every app its own process, real NATS and Postgres)', () => {
  const admin = adminEnv();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;

  beforeAll(async () => {
    db = await createTestDatabase('kw_dist');
    platform = await startDistributed({
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL!,
      SERVICE_TIMEOUT_MS: '1500',
      REQUEST_DEADLINE_GRACE_MS: '200',
      DIAGNOSTICS_ENABLED: 'true',
      ...admin,
    });
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

  it('does not carry out a create whose caller got 504 while its component was stopped, once it resumes', async () => {
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const api = workspacesApi(platform.url);
    const ws = await api.createWorkspace(token, { name: 'Stalled' });
    const types = await api.ok(token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const noteTypeId = types.items.find((t: { key: string }) => t.key === 'note').id;
    await expect.poll(async () => (await fetch(`${platform.url}/api/health/fragments`)).status).toBe(200);
    const pid = platform.pidOf('fragments')!;

    process.kill(pid, 'SIGSTOP');
    let status: number;
    try {
      const res = await fetch(`${platform.url}/api/memory-fragments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          workspaceId: ws.id,
          fragmentTypeId: noteTypeId,
          title: 'Sent while stalled',
          content: 'x',
        }),
      });
      status = res.status;
      // Past the caller's deadline and REQUEST_DEADLINE_GRACE_MS.
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(status).toBe(504);

    // The request waited in its socket meanwhile: resumed, the component reads it and drops it.
    await expect
      .poll(() => platform.logs.some((l) => l.pid === pid && l.msg === 'request dropped: its caller stopped waiting'), {
        timeout: 10_000,
      })
      .toBe(true);
    const list = await api.ok(token, 'GET', `/api/memory-fragments?workspaceId=${ws.id}`, undefined, 200);
    expect(list.items).toEqual([]);
  }, 40_000);

  it('a stalled identity service: REST, OAuth and /api/v1 answer 504 in their own shapes, each with Retry-After', async () => {
    await expect.poll(async () => (await fetch(`${platform.url}/api/health/agent-auth`)).status).toBe(200);
    const pid = platform.pidOf('agent-auth')!;
    // Opaque secrets only the identity service can judge (never cached).
    const secret = () => `Bearer ${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;
    process.kill(pid, 'SIGSTOP');
    let answers: Response[];
    try {
      answers = await Promise.all([
        fetch(`${platform.url}/api/workspaces`, { headers: { authorization: secret() } }),
        fetch(`${platform.url}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token&refresh_token=stalled&client_id=stalled',
        }),
        fetch(`${platform.url}/api/v1/models`, { headers: { authorization: secret() } }),
      ]);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const [rest, oauth, openai] = answers;
    expect(answers.map((a) => a.status)).toEqual([504, 504, 504]);
    for (const answer of answers) expect(answer.headers.get('retry-after'), answer.url).toBe('2');
    expect(await readJson(rest)).toMatchObject({ code: 'SERVICE_TIMEOUT' });
    expect(await readJson(oauth)).toMatchObject({ error: 'server_error' });
    expect(await readJson(openai)).toMatchObject({ error: { type: 'server_error', code: 'service_timeout' } });
  }, 40_000);

  it('while the identity service is down, MCP answers 503 or 504 and asks for no new sign-in', async () => {
    const pid = platform.pidOf('agent-auth')!;
    process.kill(pid, 'SIGKILL');
    // A request in flight at the kill times out (504); later ones find no responder (503).
    const failures: Response[] = [];
    for (let i = 0; i < 200 && failures.length === 0; i++) {
      const res = await fetch(`${platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          // Shaped like an operator's opaque secret: only the identity service can judge it.
          authorization: `Bearer ${'x'.repeat(40)}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      if (res.status >= 500) failures.push(res);
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect([503, 504]).toContain(failures[0]?.status);
    // A WWW-Authenticate challenge would send the client into a new OAuth sign-in for nothing.
    expect(failures[0].headers.get('www-authenticate')).toBeNull();
    expect(failures[0].headers.get('retry-after')).toBe('2');
    await expect
      .poll(async () => (await fetch(`${platform.url}/api/health/agent-auth`)).status, {
        timeout: 20_000,
        interval: 200,
      })
      .toBe(200);
  }, 40_000);

  // Last: it stops the platform.
  it('on SIGTERM stops the gateway first: a request it accepted still reaches the other apps', async () => {
    const { port } = new URL(platform.url);
    const body = JSON.stringify({ component: 'fragments', text: 'accepted before the signal' });
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (c: string) => (answer += c));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()).on('error', () => resolve()));
    // The request is accepted (headers and half its body) before the signal; the gateway calls
    // fragments only once the body is complete, well after the back ends would have stopped.
    socket.write(
      `POST /api/diagnostics/echo HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    platform.runner.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    // write, not end: a half-closed connection is one whose answer Node drops.
    socket.write(body.slice(10));
    await closed;
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(answer).toContain('"servedBy":"fragments"');
    expect(await platform.stop()).toBe(0);
    const stopping = platform.logs.findIndex((l) => l.msg === 'stopping');
    const exited = platform.logs
      .slice(stopping)
      .filter((l) => l.msg === 'app exited')
      .map((l) => l.app);
    expect(exited).toHaveLength(8);
    expect(exited[0]).toBe('gateway');
  }, 60_000);
});
