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

/**
 * A zone of the owner's on the Cloud, and its Leaf started and enrolled (heartbeats every
 * second), once the Cloud shows the zone online: what a test of the two planes starts from.
 */
export async function enrolledLeaf(options: {
  cloudUrl: string;
  ownerToken: string;
  databaseUrl: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<{ leaf: PlatformProcess; leafUrl: string; zoneId: string }> {
  const asOwner = { authorization: `Bearer ${options.ownerToken}`, 'content-type': 'application/json' };
  const created = await fetch(`${options.cloudUrl}/api/hosted-zones`, {
    method: 'POST',
    headers: asOwner,
    body: JSON.stringify({ name: 'On-prem', region: 'eu' }),
  });
  if (created.status !== 201) throw new Error(`creating a zone answered ${created.status}: ${await created.text()}`);
  const { hostedZone, enrollmentToken } = (await created.json()) as {
    hostedZone: { id: string };
    enrollmentToken: string;
  };
  const port = await freePort();
  const leafUrl = `http://127.0.0.1:${port}`;
  const leaf = await startLeaf({
    PORT: String(port),
    PUBLIC_URL: leafUrl,
    DATABASE_URL: options.databaseUrl,
    DATA_DIR: options.dataDir,
    CLOUD_URL: options.cloudUrl,
    ENROLLMENT_TOKEN: enrollmentToken,
    SECRETS_ENCRYPTION_KEY: 'c'.repeat(64),
    LEAF_HEARTBEAT_SECONDS: '1',
    ...options.env,
  });
  await poll('zone online', async () => {
    const res = await fetch(`${options.cloudUrl}/api/hosted-zones/${hostedZone.id}`, { headers: asOwner });
    return ((await res.json()) as { hostedZone?: { status: string } }).hostedZone?.status === 'online';
  });
  return { leaf, leafUrl, zoneId: hostedZone.id };
}
