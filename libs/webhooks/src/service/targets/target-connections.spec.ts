import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CheckedTarget } from './check-target.js';
import { sendToTarget } from './send-to-target.js';
import { TargetConnections } from './target-connections.js';

const fixture = (name: string) => readFileSync(new URL(`../../../../../test/fixtures/tls/${name}`, import.meta.url));
const CA = fixture('ca.pem');
const TLS = { cert: fixture('server.pem'), key: fixture('server-key.pem') };

/** An HTTPS receiver that counts the TLS connections it accepted and the requests on each. */
async function receiver() {
  const requestsOn = new Map<Socket, number>();
  let connections = 0;
  const server: Server = createServer(TLS, (req, res) => {
    const socket = req.socket;
    const n = (requestsOn.get(socket) ?? 0) + 1;
    requestsOn.set(socket, n);
    req.resume();
    req.on('end', () => {
      const path = req.url!;
      // Drops a kept connection at its second request without answering: what a receiver
      // closing an idle connection looks like to the sender that just reused it.
      if (path === '/drop-reused' && n > 1) return socket.destroy();
      if (path === '/slow') return void setTimeout(() => res.writeHead(204).end(), 300);
      if (path === '/big') return void res.writeHead(200).end('x'.repeat(256 * 1024));
      res.writeHead(204).end();
    });
  });
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
  };
}

/** A target pinned to `address` under the name `localhost` (the test certificate names it). */
function pinned(port: number, path: string, address = '127.0.0.1'): CheckedTarget {
  return {
    url: new URL(`https://localhost:${port}${path}`),
    hostname: 'localhost',
    port,
    addresses: [{ address, family: address.includes(':') ? 6 : 4 }],
  };
}

describe('keep-alive connections to webhook receivers (TargetConnections)', () => {
  let main: Awaited<ReturnType<typeof receiver>>;
  let pool: TargetConnections;
  const send = (target: CheckedTarget, connections = pool) =>
    sendToTarget({
      target,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      ca: CA,
      agent: connections.agentFor('endpoint', target),
    });

  beforeAll(async () => {
    main = await receiver();
  });
  afterEach(() => pool?.close());
  afterAll(async () => {
    main.server.closeAllConnections();
    await new Promise((r) => main.server.close(r));
  });

  it('sends one delivery after another over one connection', async () => {
    pool = new TargetConnections();
    const before = main.connections;
    for (let i = 0; i < 5; i++) expect(await send(pinned(main.port, '/ok'))).toMatchObject({ ok: true, status: 204 });
    expect(main.connections - before).toBe(1);
  });

  it('never lends a connection to a target whose check approved other addresses', async () => {
    pool = new TargetConnections();
    const before = main.connections;
    expect(await send(pinned(main.port, '/ok'))).toMatchObject({ ok: true });
    // Same name and port, but this check resolved elsewhere (an unroutable test address):
    // it gets a pool of its own, and a connection to the address it approved or none.
    const elsewhere = pinned(main.port, '/ok', '192.0.2.1');
    expect(pool.agentFor('endpoint', elsewhere)).not.toBe(pool.agentFor('endpoint', pinned(main.port, '/ok')));
    const failed = await sendToTarget({
      target: elsewhere,
      headers: {},
      body: '{}',
      ca: CA,
      timeoutMs: 300,
      agent: pool.agentFor('endpoint', elsewhere),
    });
    expect(failed.ok).toBe(false);
    expect(main.connections - before).toBe(1);
  });

  it('keeps a connection busy past the idle time while the receiver takes its time', async () => {
    pool = new TargetConnections({ idleMs: 100 });
    expect(await send(pinned(main.port, '/slow'))).toMatchObject({ ok: true, status: 204 });
  });

  it('closes idle connections after the idle time', async () => {
    pool = new TargetConnections({ idleMs: 100 });
    const before = main.connections;
    await send(pinned(main.port, '/ok'));
    await new Promise((r) => setTimeout(r, 300));
    await send(pinned(main.port, '/ok'));
    expect(main.connections - before).toBe(2);
  });

  it('sends again on a new connection when a kept one is dropped before any answer', async () => {
    pool = new TargetConnections();
    const before = main.connections;
    expect(await send(pinned(main.port, '/drop-reused'))).toMatchObject({ ok: true });
    expect(await send(pinned(main.port, '/drop-reused'))).toMatchObject({ ok: true, status: 204 });
    expect(main.connections - before).toBe(2);
  });

  it('does not keep a connection whose answer was left unread (a large body)', async () => {
    pool = new TargetConnections();
    const before = main.connections;
    expect(await send(pinned(main.port, '/big'))).toMatchObject({ ok: true, status: 200 });
    // Time enough for the rest of the body to arrive, had the connection been kept.
    await new Promise((r) => setTimeout(r, 200));
    expect(await send(pinned(main.port, '/ok'))).toMatchObject({ ok: true });
    expect(main.connections - before).toBe(2);
  });

  it("gives each endpoint connections of its own: another endpoint's requests never queue behind them", async () => {
    pool = new TargetConnections({ socketsPerTarget: 1 });
    const target = pinned(main.port, '/slow');
    expect(pool.agentFor('a', target)).not.toBe(pool.agentFor('b', target));
    // Endpoint a's only connection is busy for 300 ms; b, on the same host and port, is not held up.
    const slow = sendToTarget({ target, headers: {}, body: '{}', ca: CA, agent: pool.agentFor('a', target) });
    await new Promise((r) => setTimeout(r, 50));
    const other = await sendToTarget({
      target: pinned(main.port, '/ok'),
      headers: {},
      body: '{}',
      ca: CA,
      agent: pool.agentFor('b', pinned(main.port, '/ok')),
    });
    expect(other).toMatchObject({ ok: true, status: 204 });
    expect(other.durationMs).toBeLessThan(250);
    expect(await slow).toMatchObject({ ok: true });
  });

  it("times the receiver, not the wait for one of the endpoint's busy connections", async () => {
    pool = new TargetConnections({ socketsPerTarget: 1 });
    const target = pinned(main.port, '/slow');
    const agent = pool.agentFor('a', target);
    // Each answer takes 300 ms; the second waits 300 ms for the connection, then 300 ms at the
    // receiver: within the 450 ms deadline, which runs from when it has the connection.
    const send = () => sendToTarget({ target, headers: {}, body: '{}', ca: CA, timeoutMs: 450, agent });
    const [first, second] = await Promise.all([send(), send()]);
    expect(first).toMatchObject({ ok: true, status: 204 });
    expect(second).toMatchObject({ ok: true, status: 204 });
    expect(second.durationMs).toBeGreaterThan(450);
  });

  it('beyond maxTargets closes the least recently used endpoint with nothing in flight, and drops unused ones', async () => {
    pool = new TargetConnections({ maxTargets: 2 });
    const ok = pinned(main.port, '/ok');
    const slow = pinned(main.port, '/slow');
    const a = pool.agentFor('a', slow);
    const inFlight = sendToTarget({ target: slow, headers: {}, body: '{}', ca: CA, agent: a });
    const b = pool.agentFor('b', ok);
    expect(await sendToTarget({ target: ok, headers: {}, body: '{}', ca: CA, agent: b })).toMatchObject({ ok: true });
    // a is the least recently used but busy: b (idle connections only) is closed instead.
    pool.agentFor('c', ok);
    expect(pool.size).toBe(2);
    expect(pool.agentFor('a', slow)).toBe(a);
    expect(pool.agentFor('b', ok)).not.toBe(b);
    expect(await inFlight).toMatchObject({ ok: true, status: 204 });
    // Agents that hold no connection at all are dropped when another is made.
    const fresh = new TargetConnections({ maxTargets: 10 });
    fresh.agentFor('x', pinned(1001, '/'));
    fresh.agentFor('y', pinned(1002, '/'));
    expect(fresh.size).toBe(1);
    fresh.close();
  });
});
