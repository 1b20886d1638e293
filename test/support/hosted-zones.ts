import net from 'node:net';
import { startApp, type PlatformProcess } from './processes.js';

/**
 * The development setting every hosted-zone test on this machine needs: its Leaves listen on
 * plain http (127.0.0.1), which a Leaf refuses as its PUBLIC_URL and a Cloud refuses as a
 * zone's endpoint without it (docs/hosted-zones-leaf.md). Give it to the Leaf and to the Cloud.
 */
export const ALLOW_HTTP_ENDPOINTS = { HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS: 'true' } as const;

/** Starts the built Leaf (dist/apps/leaf) as a real process, allowed to run on plain http. */
export function startLeaf(env: Record<string, string>, timeoutMs?: number): Promise<PlatformProcess> {
  return startApp('leaf', { ...ALLOW_HTTP_ENDPOINTS, ...env }, timeoutMs);
}

/** A TCP port free on 127.0.0.1 right now (for a process that must keep its address across a restart). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits for a state a plane reaches on its own (heartbeats, jobs); no duration is asserted. */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
