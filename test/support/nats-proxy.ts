import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of NATS whose connections a test can cut (a NATS outage as a process
 * sees it: its sockets closed, new connections refused) and restore, without touching the
 * shared NATS server.
 */
export interface NatsProxy {
  /** `nats://127.0.0.1:<port>`: give it to the process under test as NATS_URL. */
  url: string;
  /** Closes every proxied connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startNatsProxy(natsUrl: string): Promise<NatsProxy> {
  const target = new URL(natsUrl.split(',')[0]);
  const sockets = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 4222), target.hostname);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cut = () => {
    refusing = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    cut,
    restore() {
      refusing = false;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
