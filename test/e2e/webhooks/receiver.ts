import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import path from 'node:path';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ROOT } from '../../support/processes.js';

const TLS = path.join(ROOT, 'test/fixtures/tls');
/** The test CA the platform trusts through WEBHOOKS_CA_FILE. */
export const TEST_CA_FILE = path.join(TLS, 'ca.pem');

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: Received, res: ServerResponse) => void;

/**
 * A webhook receiver over real HTTPS (certificate of the test CA, for localhost/127.0.0.1)
 * that records what arrives. It can go down and come back up on the same port.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let respond: Responder = (_req, res) => res.writeHead(204).end();
  let server: Server | undefined;
  let port = 0;

  const listen = async () => {
    server = createServer(
      { key: readFileSync(path.join(TLS, 'server-key.pem')), cert: readFileSync(path.join(TLS, 'server.pem')) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const entry = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
          received.push(entry);
          respond(entry, res);
        });
      },
    );
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as { port: number }).port;
  };
  const close = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
      server = undefined;
    });

  await listen();
  return {
    received,
    url: (suffix = '/hooks') => `https://127.0.0.1:${port}${suffix}`,
    localhostUrl: (suffix = '/hooks') => `https://localhost:${port}${suffix}`,
    setResponder(r: Responder) {
      respond = r;
    },
    /** Received requests whose path is `path`. */
    at: (p: string) => received.filter((r) => r.path === p),
    down: close,
    up: listen,
    close,
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
