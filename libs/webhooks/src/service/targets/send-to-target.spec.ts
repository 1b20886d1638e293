import { readFileSync } from 'node:fs';
import { promises as dns } from 'node:dns';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkTarget, type CheckedTarget } from './check-target.js';
import { sendToTarget } from './send-to-target.js';

const fixture = (name: string) => readFileSync(new URL(`../../../../../test/fixtures/tls/${name}`, import.meta.url));
const CA = fixture('ca.pem');
const TLS = { cert: fixture('server.pem'), key: fixture('server-key.pem') };

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTPS receiver on 127.0.0.1 recording every request; `routes` answer by path. */
async function receiver(
  routes: Record<string, (res: ServerResponse) => void> = {},
): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(TLS, async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ path: req.url!, headers: req.headers, body });
    const route = routes[req.url!.split('?')[0]];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections(); // the hanging routes keep connections open
  return new Promise((r) => server.close(() => r()));
}

/** A target pinned to 127.0.0.1 under any host name, as checkTarget would have produced it. */
function pinned(hostname: string, port: number, path: string, address = '127.0.0.1'): CheckedTarget {
  return { url: new URL(`https://${hostname}:${port}${path}`), hostname, port, addresses: [{ address, family: 4 }] };
}

describe('sendToTarget against a local HTTPS receiver', () => {
  let main: Awaited<ReturnType<typeof receiver>>;
  let elsewhere: Awaited<ReturnType<typeof receiver>>;
  const send = async (path: string, extra: { timeoutMs?: number } = {}) =>
    sendToTarget({
      target: await checkTarget(`https://127.0.0.1:${main.port}${path}`, { allowPrivateTargets: true }),
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{"type":"fragment.created"}',
      ca: CA,
      ...extra,
    });

  beforeAll(async () => {
    elsewhere = await receiver({ '/stolen': (res) => res.writeHead(200).end('you should not be here') });
    main = await receiver({
      '/ok': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('accepted'),
      '/no-content': (res) => res.writeHead(204).end(),
      '/redirect-local': (res) => res.writeHead(302, { location: `https://127.0.0.1:${elsewhere.port}/stolen` }).end(),
      '/redirect-private': (res) => res.writeHead(307, { location: 'https://10.0.0.1/' }).end(),
      '/error': (res) => res.writeHead(500).end('boom'),
      '/busy': (res) => res.writeHead(429, { 'retry-after': '7' }).end(),
      '/unavailable': (res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end(),
      '/big': (res) => res.writeHead(200).end('x'.repeat(1024 * 1024)),
      '/hang': () => {},
      '/slow-body': (res) => {
        res.writeHead(200);
        res.write('partial');
      },
    });
  });
  afterAll(async () => {
    await close(main.server);
    await close(elsewhere.server);
  });
  beforeEach(() => {
    main.seen.length = 0;
    elsewhere.seen.length = 0;
  });

  it('delivers a POST with the headers and body, and a 2xx is success', async () => {
    const result = await send('/ok?topic=a');
    expect(result).toMatchObject({ ok: true, status: 200, responseSnippet: 'accepted' });
    expect(result.failure).toBeUndefined();
    expect(typeof result.durationMs).toBe('number');
    expect(main.seen).toHaveLength(1);
    expect(main.seen[0]).toMatchObject({ path: '/ok?topic=a', body: '{"type":"fragment.created"}' });
    expect(main.seen[0].headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'content-length': '27',
    });
  });

  it('sets Host and Content-Length itself, ignoring caller values for them', async () => {
    const target = await checkTarget(`https://127.0.0.1:${main.port}/ok`, { allowPrivateTargets: true });
    const headers = {
      host: 'internal.example',
      'Content-Length': '1',
      'transfer-encoding': 'chunked',
      'x-extra': 'kept',
    };
    expect(await sendToTarget({ target, headers, body: 'hello', ca: CA })).toMatchObject({ ok: true, status: 200 });
    expect(main.seen[0].body).toBe('hello');
    expect(main.seen[0].headers).toMatchObject({
      host: `127.0.0.1:${main.port}`,
      'content-length': '5',
      'x-extra': 'kept',
    });
    expect(main.seen[0].headers['transfer-encoding']).toBeUndefined();
  });

  it('treats 204 as success too', async () => {
    expect(await send('/no-content')).toMatchObject({ ok: true, status: 204 });
  });

  it('fails a redirect without ever requesting its Location', async () => {
    const result = await send('/redirect-local');
    expect(result).toMatchObject({ ok: false, status: 302, failure: 'redirect' });
    expect(main.seen.map((s) => s.path)).toEqual(['/redirect-local']);
    expect(elsewhere.seen).toEqual([]);
  });

  it('fails a redirect to a private address', async () => {
    expect(await send('/redirect-private')).toMatchObject({ ok: false, status: 307, failure: 'redirect' });
  });

  it('fails a 500 as status, keeping the start of the body', async () => {
    expect(await send('/error')).toMatchObject({ ok: false, status: 500, failure: 'status', responseSnippet: 'boom' });
  });

  it('reads Retry-After in seconds from a 429', async () => {
    const result = await send('/busy');
    expect(result).toMatchObject({ ok: false, status: 429, failure: 'status', retryAfterMs: 7000 });
  });

  it('reads Retry-After as an HTTP-date from a 503', async () => {
    const result = await send('/unavailable');
    expect(result).toMatchObject({ ok: false, status: 503, failure: 'status' });
    expect(result.retryAfterMs).toBeGreaterThan(0);
    expect(result.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('keeps at most 512 characters of a large response', async () => {
    const result = await send('/big');
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.responseSnippet).toBe('x'.repeat(512));
  });

  it('times out when the receiver never answers', async () => {
    expect(await send('/hang', { timeoutMs: 200 })).toMatchObject({ ok: false, failure: 'timeout' });
  });

  it('times out when the body never ends, even after a 200 status', async () => {
    const result = await send('/slow-body', { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, failure: 'timeout' });
  });

  it('connects to the checked address even when the name does not resolve (DNS rebinding)', async () => {
    await expect(dns.lookup('rebind.test')).rejects.toThrow();
    const result = await sendToTarget({
      target: pinned('rebind.test', main.port, '/ok'),
      headers: {},
      body: '{}',
      ca: CA,
    });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(main.seen.at(-1)?.headers.host).toBe(`rebind.test:${main.port}`);
  });

  it('connects only to the checked address even when the name resolves elsewhere', async () => {
    // localhost resolves to where the receiver listens, but the checked address is 127.0.0.2, where nothing does.
    const result = await sendToTarget({
      target: pinned('localhost', main.port, '/ok', '127.0.0.2'),
      headers: {},
      body: '{}',
      ca: CA,
    });
    expect(result).toMatchObject({ ok: false, failure: 'connect' });
    expect(main.seen).toEqual([]);
  });

  it('tries the next checked address when one refuses the connection', async () => {
    const target = {
      ...pinned('localhost', main.port, '/ok', '127.0.0.2'),
      addresses: [
        { address: '127.0.0.2', family: 4 as const },
        { address: '127.0.0.1', family: 4 as const },
      ],
    };
    expect(await sendToTarget({ target, headers: {}, body: '{}', ca: CA })).toMatchObject({ ok: true, status: 200 });
  });

  it('fails with tls when the certificate comes from a CA that is not trusted (no ca given)', async () => {
    const result = await sendToTarget({ target: pinned('localhost', main.port, '/ok'), headers: {}, body: '{}' });
    expect(result).toMatchObject({ ok: false, failure: 'tls' });
    expect(main.seen).toEqual([]);
  });

  it('fails with tls when the certificate does not name the host, though the address is right', async () => {
    const result = await sendToTarget({
      target: pinned('other.test', main.port, '/ok'),
      headers: {},
      body: '{}',
      ca: CA,
    });
    expect(result).toMatchObject({ ok: false, failure: 'tls' });
    expect(main.seen).toEqual([]);
  });

  it('answers a header Node cannot send with a refusal instead of throwing', async () => {
    const result = await sendToTarget({
      target: pinned('localhost', main.port, '/ok'),
      headers: { 'x-auth': 'a\r\nx-injected: 1' },
      body: '{}',
      ca: CA,
    });
    expect(result).toMatchObject({ ok: false, failure: 'refused' });
    expect(main.seen).toEqual([]);
  });

  it('refuses a target without checked addresses', async () => {
    const target = { ...pinned('localhost', main.port, '/ok'), addresses: [] };
    expect(await sendToTarget({ target, headers: {}, body: '{}', ca: CA })).toMatchObject({
      ok: false,
      failure: 'refused',
    });
    expect(main.seen).toEqual([]);
  });
});
