import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, createUser } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { startIdentityProvider, type IdentityProvider } from '../../support/stand-ins/identity-provider-stand-in.js';

/**
 * Agent authentication in distributed mode: the gateway parses the form and SET bodies and
 * agent-auth, in its own process, verifies and stores. The gateway caches token
 * authentications for a minute here, so a token refused within the test was refused because
 * the security event's CredentialsChanged broadcast reached the gateway, not by a timeout.
 */
describeWith(['postgres', 'nats'], 'agent authentication (distributed mode)', () => {
  const admin = adminEnv();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let idp: IdentityProvider;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    db = await createTestDatabase('kw_agent_auth');
    platform = await startDistributed(
      {
        DATABASE_URL: db.url,
        NATS_URL: TEST_NATS_URL!,
        AUTH_CACHE_TTL_MS: '60000',
        SERVICE_TIMEOUT_MS: '3000',
        REQUEST_DEADLINE_GRACE_MS: '200',
        AGENT_TRUSTED_ISSUERS: JSON.stringify([idp.trusted]),
        AGENT_JWKS_ALLOW_PRIVATE: 'true',
        ...admin,
      },
      120_000,
    );
  }, 180_000);

  afterAll(async () => {
    if (platform) await platform.stop();
    await db?.drop();
    await idp?.close();
  }, 60_000);

  it('shows the authorization page as a page while the identity service is down: never a JSON body', async () => {
    const base = platform.url;
    const authorize = `${base}/oauth2/authorize?response_type=code&client_id=${crypto.randomUUID()}&code_challenge_method=S256`;
    const pid = platform.pidOf('agent-auth')!;
    process.kill(pid, 'SIGKILL');
    let down: Response | undefined;
    for (let i = 0; i < 200 && !down; i++) {
      const res = await fetch(authorize, { headers: { accept: 'text/html' } });
      if (res.status >= 500) down = res;
      else await new Promise((r) => setTimeout(r, 20));
    }
    // 503 while no agent-auth answers (504 if one was in flight at the kill).
    expect([503, 504]).toContain(down?.status);
    expect(down!.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(down!.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(down!.headers.get('cache-control')).toBe('no-store');
    if (down!.status === 503) expect(down!.headers.get('retry-after')).toBe('2');
    expect(await down!.text()).toContain('Reload this page in a moment');
    await expect
      .poll(async () => (await fetch(`${base}/api/health/agent-auth`)).status, { timeout: 30_000, interval: 200 })
      .toBe(200);
  }, 60_000);

  it('exchanges an ID-JAG, and a security event revokes the cached token at once', async () => {
    const base = platform.url;
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const res = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: await idp.idJag(base, { email: user.email }),
      }).toString(),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const me = () => fetch(`${base}/api/profile`, { headers: { authorization: `Bearer ${access_token}` } });
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(200);

    const set = await idp.securityEvent(
      base,
      { 'https://schemas.openid.net/secevent/caep/event-type/session-revoked': {} },
      { sub_id: { format: 'email', email: user.email } },
    );
    const pushed = await fetch(`${base}/agent/event/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/secevent+jwt' },
      body: set,
    });
    expect(pushed.status).toBe(202);
    expect((await me()).status).toBe(401);
  });

  it('a refresh whose answer was lost to a 504 is not committed: the retry rotates, the grant lives', async () => {
    const base = platform.url;
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const token = async (form: Record<string, string>) =>
      fetch(`${base}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const first = await token({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await idp.idJag(base, { email: user.email }),
    });
    expect(first.status).toBe(200);
    const { access_token, refresh_token } = (await first.json()) as { access_token: string; refresh_token: string };

    // Another transaction holds the refresh tokens' rows past the gateway's timeout (a lock
    // wait, a pause): agent-auth reaches its commit only after its caller has answered 504.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT id FROM control.agent_tokens WHERE kind = 'refresh' FOR UPDATE`);
      const lost = await token({ grant_type: 'refresh_token', refresh_token });
      expect(lost.status).toBe(504);
      await new Promise((r) => setTimeout(r, 500)); // past the deadline and its grace
      await blocker.query('ROLLBACK');
    } finally {
      await blocker.end();
    }

    // The client retries with the same refresh token, as a lost answer tells it to.
    const retry = await token({ grant_type: 'refresh_token', refresh_token });
    expect(retry.status, await retry.clone().text()).toBe(200);
    const next = (await retry.json()) as { access_token: string };
    for (const bearer of [access_token, next.access_token])
      expect((await fetch(`${base}/api/profile`, { headers: { authorization: `Bearer ${bearer}` } })).status).toBe(200);
  }, 60_000);
});
