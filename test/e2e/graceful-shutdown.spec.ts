import { existsSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
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
    // The port closes at SIGTERM (docs/configuration.md, "Process endpoints"): a new probe
    // connection is refused, not answered 503, while the accepted request still finishes.
    await new Promise((r) => setTimeout(r, 300));
    for (const probe of ['/readyz', '/healthz'])
      await expect(fetch(`${platform.url}${probe}`), probe).rejects.toThrow();

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

  it('past SHUTDOWN_TIMEOUT_MS exits 1, having stopped the embedded database and released its lock', async () => {
    const dir = tempDir('kw-shutdown-');
    try {
      platform = await startEmbedded(dir, { ...adminEnv(), DIAGNOSTICS_ENABLED: 'true', SHUTDOWN_TIMEOUT_MS: '1000' });
      expect(existsSync(path.join(dir, 'pg.lock'))).toBe(true);
      // Longer than the grace period: the drain cannot finish.
      const inFlight = fetch(`${platform.url}/api/diagnostics/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ component: 'fragments', text: 'too slow', delayMs: 6000 }),
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      platform.child.kill('SIGTERM');
      expect(await platform.exited).toBe(1);
      await inFlight;
      const messages = platform.logs.map((l) => l.msg);
      expect(messages).toContain('drain timed out; exiting');
      // It used to exit without this: the server left stopping unwatched, pg.lock naming a dead process.
      expect(messages.indexOf('embedded PostgreSQL stopped')).toBeGreaterThan(
        messages.indexOf('drain timed out; exiting'),
      );
      expect(existsSync(path.join(dir, 'pg.lock'))).toBe(false);
      platform = undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a request arriving during the drain with 503 in the error model, a request id and Retry-After', async () => {
    const dir = tempDir('kw-shutdown-');
    try {
      platform = await startEmbedded(dir, { ...adminEnv(), DIAGNOSTICS_ENABLED: 'true', SHUTDOWN_TIMEOUT_MS: '10000' });
      const { port } = new URL(platform.url);
      // A slow request, then, once the drain began, another on the same connection (still busy,
      // so not closed as idle): what a keep-alive client does at the wrong moment.
      const sockets = ['/api/v1/models', '/api/workspaces'].map((path) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.setEncoding('utf8').on('data', (c: string) => (text += c));
        const closed = new Promise<string>((resolve, reject) =>
          socket.on('close', () => resolve(text)).on('error', reject),
        );
        const body = JSON.stringify({ component: 'fragments', text: 'slow', delayMs: 1500 });
        socket.write(
          `POST /api/diagnostics/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
        const second = () =>
          socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nx-request-id: drain-${path.length}\r\n\r\n`);
        return { closed, second };
      });
      await new Promise((r) => setTimeout(r, 400));
      platform.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      for (const s of sockets) s.second();
      const [openAi, platformShape] = await Promise.all(sockets.map((s) => s.closed));
      expect(await platform.exited).toBe(0);
      platform = undefined;

      for (const raw of [openAi, platformShape]) {
        const second = raw.slice(raw.indexOf('HTTP/1.1', 10));
        expect(raw.startsWith('HTTP/1.1 200'), raw).toBe(true);
        expect(second.startsWith('HTTP/1.1 503'), raw).toBe(true);
        expect(second.toLowerCase()).toContain('connection: close');
        expect(second.toLowerCase()).toContain('retry-after: 1');
      }
      const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.lastIndexOf('\r\n\r\n') + 4));
      expect(openAi.toLowerCase()).toContain('x-request-id: drain-14');
      expect(bodyOf(openAi)).toEqual({
        error: { message: expect.any(String), type: 'server_error', code: 'service_unavailable', param: '' },
      });
      expect(platformShape.toLowerCase()).toContain('x-request-id: drain-15');
      expect(bodyOf(platformShape)).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
