import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, createToken, signIn, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startIdentityProvider, type IdentityProvider } from '../../support/stand-ins/identity-provider-stand-in.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const limits = {
  AGENT_JWKS_ALLOW_PRIVATE: 'true',
  AUTH_FAILURES_PER_ADDRESS: '100000',
  AUTH_FAILURES_PER_CREDENTIAL: '100000',
  RATE_LIMIT_PER_ADDRESS: '100000',
  // Only the CredentialsChanged broadcast can drop a cached authentication within the test.
  AUTH_CACHE_TTL_MS: '300000',
};

interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** The agent-facing calls of one platform. */
function agentCalls(base: () => string, idp: () => IdentityProvider) {
  const form = (params: Record<string, string>) =>
    fetch(`${base()}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  return {
    tokensFor: async (email: string): Promise<Tokens> => {
      const res = await form({ grant_type: JWT_BEARER, assertion: await idp().idJag(base(), { email }) });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as Tokens;
    },
    refresh: async (tokens: Tokens) => {
      const res = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      return { status: res.status, body: (await res.json()) as any };
    },
    bearer: async (token: string) =>
      (await fetch(`${base()}/api/auth/validate-token`, { headers: { authorization: `Bearer ${token}` } })).status,
  };
}

/**
 * Un-trusting an identity provider over real HTTP against the embedded platform, with a
 * stand-in provider on loopback: removing an added issuer revokes every agent grant its
 * assertions made (their access tokens stop at once on the gateway, whose cache only the
 * broadcast can drop here; refresh is refused), and a provider dropped from
 * AGENT_TRUSTED_ISSUERS across a restart can no longer have its grants refreshed.
 */
describe('removing a trusted identity provider', () => {
  const dataDir = tempDir('kw-issuer-removal-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let idp: IdentityProvider;
  let user: TestUser;
  const calls = agentCalls(
    () => platform.url,
    () => idp,
  );
  const adminCall = (method: string, path: string, body?: unknown) =>
    fetch(`${platform.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    idp = await startIdentityProvider();
    platform = await startEmbedded(dataDir, { ...admin, ...limits });
    user = await createUser(platform.url, admin.ADMIN_TOKEN, { email: 'ada@example.test' });
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    await idp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('revokes the grants its assertions made, at once, and nothing else', async () => {
    const added = await adminCall('POST', '/api/admin/trusted-issuers', idp.trusted);
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: string };
    const first = await calls.tokensFor(user.email);
    const second = await calls.tokensFor(user.email);
    const session = await signIn(platform.url, user.email, user.password);
    const pat = await createToken(platform.url, session, { name: 'mine', scopes: ['profile:read'] });
    // Authenticated once: the gateway answers the next requests from its cache.
    for (const token of [first.access_token, second.access_token, pat.token])
      expect(await calls.bearer(token)).toBe(200);

    expect((await adminCall('DELETE', `/api/admin/trusted-issuers/${id}`)).status).toBe(204);
    expect(await calls.bearer(first.access_token)).toBe(401);
    expect(await calls.bearer(second.access_token)).toBe(401);
    for (const tokens of [first, second]) {
      const refreshed = await calls.refresh(tokens);
      expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    }
    const grants = await fetch(`${platform.url}/api/agent-grants`, { headers: { cookie: session.cookie } });
    expect(((await grants.json()) as any).grants).toEqual([]);
    // Other credentials stay; the provider's new assertions are refused.
    expect(await calls.bearer(pat.token)).toBe(200);
    const again = await fetch(`${platform.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: JWT_BEARER,
        assertion: await idp.idJag(platform.url, { email: user.email }),
      }),
    });
    expect(((await again.json()) as any).error).toBe('invalid_grant');
  });
  /**
   * Exchanges racing a revocation by issuer (its removal) or by subject (a session-revoked
   * SET): whichever way the race goes, no token the provider's assertions got survives it.
   */
  const raceExchanges = async (provider: IdentityProvider, email: string, revoke: () => Promise<Response>) => {
    const jags = await Promise.all(Array.from({ length: 10 }, () => provider.idJag(platform.url, { email })));
    const exchanges = jags.map(async (assertion, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 3));
      const res = await fetch(`${platform.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
      });
      return { status: res.status, body: (await res.json()) as Tokens & { error?: string } };
    });
    const revoked = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 12));
      return (await revoke()).status;
    })();
    const [answers, revokeStatus] = await Promise.all([Promise.all(exchanges), revoked]);
    for (const a of answers) expect(a.status === 200 || a.body.error === 'invalid_grant', JSON.stringify(a)).toBe(true);
    return { revokeStatus, issued: answers.filter((a) => a.status === 200).map((a) => a.body) };
  };

  /** No token the race issued works, and the user lists no grant of the provider. */
  const expectNothingLive = async (issued: Tokens[], provider: IdentityProvider, cookie: string) => {
    for (const tokens of issued) {
      expect(await calls.bearer(tokens.access_token)).toBe(401);
      expect((await calls.refresh(tokens)).body.error).toBe('invalid_grant');
    }
    const grants = await fetch(`${platform.url}/api/agent-grants`, { headers: { cookie } });
    expect(((await grants.json()) as any).grants.filter((g: any) => g.issuer === provider.issuer)).toEqual([]);
  };

  it('leaves no live grant when its removal races exchanges of its assertions', async () => {
    const session = await signIn(platform.url, user.email, user.password);
    for (let round = 0; round < 3; round++) {
      const provider = await startIdentityProvider();
      try {
        const added = await adminCall('POST', '/api/admin/trusted-issuers', provider.trusted);
        const { id } = (await added.json()) as { id: string };
        await calls.bearer(
          (
            await agentCalls(
              () => platform.url,
              () => provider,
            ).tokensFor(user.email)
          ).access_token,
        );
        const { revokeStatus, issued } = await raceExchanges(provider, user.email, () =>
          adminCall('DELETE', `/api/admin/trusted-issuers/${id}`),
        );
        expect(revokeStatus).toBe(204);
        await expectNothingLive(issued, provider, session.cookie);
      } finally {
        await provider.close();
      }
    }
  });

  it('leaves no live grant when a session-revoked event races exchanges for its subject', async () => {
    const provider = await startIdentityProvider();
    try {
      expect((await adminCall('POST', '/api/admin/trusted-issuers', provider.trusted)).status).toBe(201);
      await agentCalls(
        () => platform.url,
        () => provider,
      ).tokensFor(user.email);
      const session = await signIn(platform.url, user.email, user.password);
      for (let round = 0; round < 3; round++) {
        const set = await provider.securityEvent(platform.url, {
          'https://schemas.openid.net/secevent/caep/event-type/session-revoked': {
            subject: { format: 'email', email: user.email },
          },
        });
        const { revokeStatus, issued } = await raceExchanges(provider, user.email, () =>
          fetch(`${platform.url}/agent/event/notify`, {
            method: 'POST',
            headers: { 'content-type': 'application/secevent+jwt' },
            body: set,
          }),
        );
        expect(revokeStatus).toBe(202);
        // Every assertion was issued before the event (in its second or earlier): none of them may
        // leave a grant, even one whose exchange arrived or committed after the event was applied.
        await expectNothingLive(issued, provider, session.cookie);
      }
    } finally {
      await provider.close();
    }
  });
});

describe('a trusted identity provider dropped from the configuration', () => {
  const dataDir = tempDir('kw-issuer-config-');
  const admin = adminEnv();
  let platform: PlatformProcess | undefined;
  let idp: IdentityProvider;
  const calls = agentCalls(
    () => platform!.url,
    () => idp,
  );

  beforeAll(async () => {
    idp = await startIdentityProvider();
  });

  afterAll(async () => {
    await platform?.stop();
    await idp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('cannot refresh the grants it vouched for once the platform restarts without it', async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      ...limits,
      AGENT_TRUSTED_ISSUERS: JSON.stringify([idp.trusted]),
    });
    const user = await createUser(platform.url, admin.ADMIN_TOKEN);
    const tokens = await calls.tokensFor(user.email);
    expect((await calls.refresh(await calls.tokensFor(user.email))).status).toBe(200);
    await platform.stop();

    platform = await startEmbedded(dataDir, { ...admin, ...limits });
    const refused = await calls.refresh(tokens);
    expect([refused.status, refused.body.error, refused.body.error_description]).toEqual([
      400,
      'invalid_grant',
      expect.stringContaining('no longer trusted'),
    ]);
    // Refused, the grant is revoked: its access token stops too.
    expect(await calls.bearer(tokens.access_token)).toBe(401);
  }, 90_000);
});
