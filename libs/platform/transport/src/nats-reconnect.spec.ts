import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EchoService, CredentialsChangedSchema } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { describeWith } from '../../../../test/support/services.js';
import { onBroadcast } from './broadcast.js';
import { connectNats } from './connect-nats.js';
import { serveEcho } from './echo-handler.js';
import { silentLogger } from './logger.js';
import { NatsTransport } from './nats-transport.js';
import { ServiceClient } from './service-client.js';

/**
 * A NATS server restart must heal by itself. This needs a server of its own to kill (the
 * shared one serves other suites), so it runs where the nats-server binary is installed.
 */
const natsServer = process.env.NATS_SERVER_BIN ?? 'nats-server';
const hasBinary = spawnSync(natsServer, ['--version']).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describeWith(['nats'], 'NatsTransport across a NATS restart', () => {
  let port = 0;
  let server: ChildProcess | undefined;
  const transports: NatsTransport[] = [];
  const start = () => {
    server = spawn(natsServer, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  };
  const running = () => server !== undefined && server.exitCode === null && server.signalCode === null;
  const stop = async () => {
    if (!server || !running()) return;
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    port = await freePort();
  });
  afterAll(async () => {
    // Draining needs the server (a failed test may have left it stopped).
    if (transports.length > 0 && !running()) start();
    await Promise.all(transports.map((t) => t.drain()));
    await stop();
  });

  it.skipIf(!hasBinary)('connects to a server that starts later, and recovers after the server restarts', async () => {
    const url = `nats://127.0.0.1:${port}`;
    const connect = async (component: string) => {
      const nc = await connectNats(url, component, { logger: silentLogger, nats: { reconnectTimeWait: 100 } });
      const transport = new NatsTransport(nc, { component, logger: silentLogger });
      transports.push(transport);
      return transport;
    };
    // Both connect before the server is up: waitOnFirstConnect keeps them trying.
    const pending = Promise.all([connect('search'), connect('caller')]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    start();
    const [search, caller] = await pending;
    serveEcho(search);
    await search.flush();
    const client = new ServiceClient(caller, { timeoutMs: 500 });
    expect((await client.call(EchoService.method.echo, { text: 'before' }, { target: 'search' })).text).toBe('before');
    // A cache kept by broadcasts learns that it may have missed some.
    let missed = 0;
    const broadcasts = onBroadcast(
      caller,
      CredentialsChangedSchema,
      () => undefined,
      () => missed++,
    );

    await stop();
    await expect.poll(() => missed, { timeout: 5_000 }).toBe(1);
    const down = await client
      .call(EchoService.method.echo, { text: 'down' }, { target: 'search' })
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(AppError);
    expect([503, 504]).toContain((down as AppError).status);

    start();
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        expect((await client.call(EchoService.method.echo, { text: 'after' }, { target: 'search' })).text).toBe(
          'after',
        );
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await broadcasts.unsubscribe();
  });
});
