import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IdentityService } from '@kw/contracts';
import { subjectOf } from '@kw/platform-transport';
import { adminEnv, authHeaders, createToken, userWithToken } from '../../support/accounts.js';
import { readJson } from '../../support/http.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startApp, type PlatformProcess } from '../../support/processes.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';

/**
 * The gateways' token authentication cache, in distributed mode with two gateway replicas
 * sharing one agent-auth. The cache TTL is a minute here, so anything refused within the
 * test's few seconds was refused because of the CredentialsChanged broadcast (or the token's
 * own expiry), not because an entry timed out.
 */
describeWith(['postgres', 'nats'], 'gateway token cache (two gateways, real NATS and Postgres)', () => {
  const admin = adminEnv();
  const prefix = `t${randomBytes(4).toString('hex')}`;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let second: PlatformProcess;
  let nc: NatsConnection;
  /** AuthenticateToken requests seen on NATS (a plain subscriber gets a copy of each). */
  let authenticateCalls = 0;

  beforeAll(async () => {
    db = await createTestDatabase('kw_token_cache');
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL!,
      NATS_SUBJECT_PREFIX: prefix,
      AUTH_CACHE_TTL_MS: '60000',
      ...admin,
    };
    platform = await startDistributed(env, 120_000);
    second = await startApp(
      'gateway',
      { ...env, RUN_MODE: 'distributed', PORT: '0', SECRETS_ENCRYPTION_KEY: 'a'.repeat(64) },
      60_000,
    );
    nc = await connect({ servers: TEST_NATS_URL! });
    nc.subscribe(`${prefix}.${subjectOf(IdentityService.method.authenticateToken)}`, {
      callback: () => void authenticateCalls++,
    });
    await nc.flush();
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    if (second) await second.stop();
    if (platform) await platform.stop();
    await db?.drop();
  }, 60_000);

  const get = (base: string, path: string, token: string) => fetch(`${base}${path}`, { headers: authHeaders(token) });

  it('asks agent-auth once for a token, then answers its requests from the cache', async () => {
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN, { scopes: ['profile:read'] });
    const before = authenticateCalls;
    for (let i = 0; i < 5; i++) expect((await get(platform.url, '/api/profile', token)).status).toBe(200);
    await nc.flush();
    expect(authenticateCalls - before).toBe(1);
  });

  it('counts uses answered from the cache in the token analytics, exactly', async () => {
    const { token, tokenId } = await userWithToken(platform.url, admin.ADMIN_TOKEN, {
      scopes: ['profile:read', 'tokens:manage'],
    });
    for (let i = 0; i < 4; i++) expect((await get(platform.url, '/api/profile', token)).status).toBe(200);
    const analytics = await readJson(await get(platform.url, `/api/tokens/${tokenId}/analytics`, token));
    // Four profile reads and this analytics request.
    expect(analytics.totalRequests).toBe(5);
    expect(analytics.requestsPerDay.at(-1).requests).toBe(5);
  });

  it('refuses a revoked token on the gateway that revoked it at once, and on the other gateway within moments', async () => {
    const { token: manager } = await userWithToken(platform.url, admin.ADMIN_TOKEN, {
      scopes: ['tokens:manage', 'profile:read'],
    });
    const victim = await createToken(platform.url, manager, { name: 'victim', scopes: ['profile:read'] });
    // Both gateways have it cached.
    expect((await get(platform.url, '/api/profile', victim.token)).status).toBe(200);
    expect((await get(second.url, '/api/profile', victim.token)).status).toBe(200);

    const revoked = await fetch(`${platform.url}/api/tokens/${victim.id}`, {
      method: 'DELETE',
      headers: authHeaders(manager),
    });
    expect(revoked.status).toBe(204);
    expect((await get(platform.url, '/api/profile', victim.token)).status).toBe(401);
    await expect
      .poll(async () => (await get(second.url, '/api/profile', victim.token)).status, { timeout: 2_000, interval: 50 })
      .toBe(401);
  });

  it('applies narrowed scopes at once on both gateways', async () => {
    const { token: manager } = await userWithToken(platform.url, admin.ADMIN_TOKEN, {
      scopes: ['tokens:manage', 'profile:read'],
    });
    const narrowed = await createToken(platform.url, manager, {
      name: 'narrowed',
      scopes: ['profile:read', 'tokens:manage'],
    });
    expect((await get(second.url, '/api/profile', narrowed.token)).status).toBe(200);
    expect((await get(platform.url, '/api/profile', narrowed.token)).status).toBe(200);

    const patched = await fetch(`${platform.url}/api/tokens/${narrowed.id}`, {
      method: 'PATCH',
      headers: authHeaders(manager, { 'content-type': 'application/json' }),
      body: JSON.stringify({ scopes: ['tokens:manage'] }),
    });
    expect(patched.status).toBe(200);
    expect((await get(platform.url, '/api/profile', narrowed.token)).status).toBe(403);
    await expect
      .poll(async () => (await get(second.url, '/api/profile', narrowed.token)).status, {
        timeout: 2_000,
        interval: 50,
      })
      .toBe(403);
  });

  it("never answers from the cache past the token's own expiry", async () => {
    const { token: manager } = await userWithToken(platform.url, admin.ADMIN_TOKEN, {
      scopes: ['tokens:manage', 'profile:read'],
    });
    const expiresAt = new Date(Date.now() + 3_000);
    const shortLived = await createToken(platform.url, manager, {
      name: 'short',
      scopes: ['profile:read'],
      expiresAt: expiresAt.toISOString(),
    });
    expect((await get(platform.url, '/api/profile', shortLived.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt.getTime() - Date.now()) + 100));
    expect((await get(platform.url, '/api/profile', shortLived.token)).status).toBe(401);
  });
});
