import { rmSync } from 'node:fs';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, userWithToken, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startIdentityProvider, type IdentityProvider } from '../../support/stand-ins/identity-provider-stand-in.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EVENT = (name: string) =>
  name.startsWith('risc:')
    ? `https://schemas.openid.net/secevent/risc/event-type/${name.slice(5)}`
    : `https://schemas.openid.net/secevent/caep/event-type/${name}`;

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Agent authentication over real HTTP against the embedded platform, with a stand-in identity
 * provider on loopback (its JWKS served over HTTP): openid-client discovers the server and
 * performs the jwt-bearer grant, the access token works on REST and MCP, refresh rotates and
 * detects reuse, revocation ends tokens; every negative ID-JAG case is refused; Security Event
 * Tokens have their effects and bad ones answer RFC 8935 errors without changing anything.
 */
describe('agent authentication: identity assertions, tokens and security events', () => {
  const dataDir = tempDir('kw-agent-auth-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let idp: IdentityProvider;
  let user: TestUser;
  let config: oidc.Configuration;

  const form = (path: string, params: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  const exchange = (assertion: string) => form('/oauth2/token', { grant_type: JWT_BEARER, assertion });
  const bearer = (token: string, path = '/api/auth/validate-token') =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const pushEvent = (set: string, contentType = 'application/secevent+jwt') =>
    fetch(`${base}/agent/event/notify`, { method: 'POST', headers: { 'content-type': contentType }, body: set });
  const tokensFor = async (email: string, claims: Record<string, unknown> = {}) => {
    const res = await exchange(await idp.idJag(base, { email, ...claims }));
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { access_token: string; refresh_token: string; scope: string };
  };

  beforeAll(async () => {
    idp = await startIdentityProvider();
    platform = await startEmbedded(dataDir, {
      ...admin,
      AGENT_TRUSTED_ISSUERS: JSON.stringify([idp.trusted]),
      AGENT_JWKS_ALLOW_PRIVATE: 'true',
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
    });
    base = platform.url;
    user = await createUser(base, admin.ADMIN_TOKEN, { email: 'ada@example.test' });
    config = await oidc.discovery(new URL(base), 'research-agent', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    await idp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('advertises every agent endpoint, and each one answers', async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    const openid = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as any;
    expect(meta.grant_types_supported).toEqual(
      expect.arrayContaining([JWT_BEARER, 'urn:kw:agent-auth:grant-type:claim', 'refresh_token']),
    );
    expect(meta.token_endpoint_auth_methods_supported).toContain('none');
    expect(meta.revocation_endpoint).toBe(`${base}/oauth2/revoke`);
    expect(meta.agent_auth.identity_types_supported).toEqual(['identity_assertion', 'service_auth']);
    // The OpenID address serves the same document: no OpenID Provider members (no ID token,
    // userinfo or openid scope exists), so no generic OpenID client is led into failing.
    expect(openid).toEqual(meta);
    for (const oidcOnly of ['id_token_signing_alg_values_supported', 'subject_types_supported', 'claims_supported'])
      expect(openid).not.toHaveProperty(oidcOnly);
    expect(config.serverMetadata().token_endpoint).toBe(`${base}/oauth2/token`);
    // Every advertised endpoint exists: a bad request gets its protocol's 400, never 404.
    const endpoints = [
      meta.token_endpoint,
      meta.revocation_endpoint,
      ...Object.values(meta.agent_auth).filter((v) => typeof v === 'string' && v.startsWith('http')),
    ];
    for (const url of new Set(endpoints as string[])) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect([400, 415], `${url}: ${res.status}`).toContain(res.status);
    }
  });

  it('lists a configured issuer without an id (it cannot be removed through the API)', async () => {
    const issuers = await fetch(`${base}/api/admin/trusted-issuers`, {
      headers: { authorization: `Bearer ${admin.ADMIN_TOKEN}` },
    });
    const configured = ((await issuers.json()) as any).issuers.find((i: any) => i.source === 'config');
    expect(configured).toMatchObject({ issuer: idp.trusted.issuer });
    expect(configured).not.toHaveProperty('id');
  });

  it('trusts inline public keys only: a symmetric or private key is refused, and no secret is shown', async () => {
    const asAdmin = (method: string, body?: unknown) =>
      fetch(`${base}/api/admin/trusted-issuers`, {
        method,
        headers: {
          authorization: `Bearer ${admin.ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const secret = Buffer.from('a shared secret of thirty-two b!').toString('base64url');
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const refused: Record<string, object> = {
      'symmetric (oct)': { kty: 'oct', k: secret, kid: 'h' },
      'oct without k': { kty: 'oct', kid: 'h2' },
      'EC with its private d': { ...privateJwk, kid: 'e' },
      'unknown kty': { kty: 'XYZ', x: 'abc', kid: 'x' },
    };
    for (const [name, key] of Object.entries(refused)) {
      const res = await asAdmin('POST', {
        issuer: `https://idp-${crypto.randomUUID()}.example`,
        jwks: { keys: [key] },
      });
      const text = await res.text();
      expect([name, res.status, JSON.parse(text).code], text).toEqual([name, 400, 'VALIDATION_FAILED']);
      expect(JSON.parse(text).fields[0].field).toBe('jwks');
      expect(text).not.toContain(secret);
      expect(text).not.toContain(privateJwk.d);
    }
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'pub' };
    const added = await asAdmin('POST', {
      issuer: `https://idp-${crypto.randomUUID()}.example`,
      jwks: { keys: [publicJwk] },
    });
    const body = (await added.json()) as any;
    expect([added.status, body.jwks]).toEqual([201, { keys: [publicJwk] }]);
    const listing = await (await asAdmin('GET')).text();
    expect(listing).not.toContain(secret);
    expect(listing).not.toContain(privateJwk.d);
    expect(
      (
        await fetch(`${base}/api/admin/trusted-issuers/${body.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${admin.ADMIN_TOKEN}` },
        })
      ).status,
    ).toBe(204);
  });

  it('openid-client exchanges an ID-JAG, calls REST and MCP, refreshes and revokes', async () => {
    const assertion = await idp.idJag(base, {
      email: 'Ada@Example.test',
      scope: 'workspaces:read workspaces:write fragments:read search:read chat:use',
    });
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, { assertion });
    expect(tokens.token_type?.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).toMatch(/^kwa_/);
    expect(tokens.refresh_token).toMatch(/^kwr_/);
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('workspaces:read workspaces:write fragments:read search:read chat:use');

    // REST: the token acts for Ada, with exactly the approved scopes.
    const me = (await (await bearer(tokens.access_token)).json()) as any;
    expect(me.user.email).toBe('ada@example.test');
    expect(me.credential.kind).toBe('agent');
    const created = await fetch(`${base}/api/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'agent made' }),
    });
    expect(created.status).toBe(201);
    expect((await bearer(tokens.access_token, '/api/tokens')).status).toBe(403);
    // The OpenAI-compatible API takes it too.
    const models = await bearer(tokens.access_token, '/api/v1/models');
    expect(models.status).toBe(200);
    expect(((await models.json()) as any).object).toBe('list');

    // MCP with the official SDK client.
    const mcp = await connectMcp(base, tokens.access_token, 'research-agent');
    const listed = await call(mcp, 'list_workspaces');
    expect(listed.isError).toBe(false);
    expect(listed.text).toContain('agent made');
    await mcp.close();

    // Refresh rotates: the new pair works, the old refresh token is spent.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await bearer(refreshed.access_token)).status).toBe(200);

    // RFC 7009: revoking the access token ends it alone; revoking the refresh token ends the grant.
    await oidc.tokenRevocation(config, refreshed.access_token, { token_type_hint: 'access_token' });
    expect((await bearer(refreshed.access_token)).status).toBe(401);
    expect((await bearer(tokens.access_token)).status).toBe(200);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    expect((await bearer(tokens.access_token)).status).toBe(401);
    const again = await form('/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! });
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error).toBe('invalid_grant');
    // Unknown tokens: 200, nothing to say.
    expect((await form('/oauth2/revoke', { token: 'kwa_unknown' })).status).toBe(200);
  });

  it('jwt-bearer and the claim grant refuse a request whose client authentication fails', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const post = (params: Record<string, string>, authorization?: string) =>
      fetch(`${base}/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams(params).toString(),
      });
    const attempts: Array<[string, Response]> = [
      [
        'jwt-bearer, Basic of an unknown client',
        await post(
          { grant_type: JWT_BEARER, assertion: await idp.idJag(base, { email: user.email }) },
          basic(crypto.randomUUID(), 'kws_wrong'),
        ),
      ],
      [
        'jwt-bearer, client_secret in the body',
        await post({
          grant_type: JWT_BEARER,
          assertion: await idp.idJag(base, { email: user.email }),
          client_id: 'research-agent',
          client_secret: 'wrong',
        }),
      ],
      [
        'claim grant, Basic of an unknown client',
        await post(
          { grant_type: 'urn:kw:agent-auth:grant-type:claim', claim_token: 'kwc_unknown' },
          basic('research-agent', 'wrong'),
        ),
      ],
    ];
    for (const [name, res] of attempts) {
      const body = (await res.json()) as any;
      expect({ name, status: res.status, error: body.error }).toEqual({ name, status: 401, error: 'invalid_client' });
      expect(res.headers.get('www-authenticate'), name).toMatch(/^Basic/);
    }
    // Naming itself without a secret (an agent's client_id) is no client authentication: it works.
    const named = await post({
      grant_type: JWT_BEARER,
      assertion: await idp.idJag(base, { email: user.email }),
      client_id: 'research-agent',
    });
    expect(named.status).toBe(200);
  });

  it('one refresh token sent several times at once: one rotation, the rest invalid_grant, never a 5xx', async () => {
    for (let round = 0; round < 8; round++) {
      const first = await tokensFor(user.email, { sub: 'subject-concurrent-refresh' });
      const answers = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const res = await form('/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
          return { status: res.status, body: (await res.json()) as any };
        }),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(
        statuses.every((s) => s === 200 || s === 400),
        JSON.stringify(answers),
      ).toBe(true);
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      for (const a of answers) if (a.status === 400) expect(a.body.error).toBe('invalid_grant');
      // A reuse was seen: the grant is revoked, the pair a winner got included.
      for (const a of answers.filter((x) => x.status === 200))
        expect((await bearer(a.body.access_token)).status).toBe(401);
    }
  });

  it('refresh narrows the new access token to the scope asked for; the grant keeps its scopes', async () => {
    const granted = 'workspaces:read fragments:read search:read';
    const first = await tokensFor(user.email, { scope: granted, sub: 'subject-narrowed' });
    const refresh = async (refreshToken: string, scope?: string) => {
      const res = await form('/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...(scope === undefined ? {} : { scope }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    // Beyond the grant: invalid_scope, and the refresh token is not spent.
    const beyond = await refresh(first.refresh_token, 'workspaces:read fragments:write');
    expect([beyond.status, beyond.body.error]).toEqual([400, 'invalid_scope']);
    const narrowed = await refresh(first.refresh_token, 'workspaces:read');
    expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'workspaces:read']);
    const acting = (await (await bearer(narrowed.body.access_token)).json()) as any;
    expect(acting.credential.scopes).toEqual(['workspaces:read']);
    expect((await bearer(narrowed.body.access_token, '/api/workspaces')).status).toBe(200);
    // fragments:read is not in the narrowed token: a workspace's fragments are 403 for it.
    const session = await sessionHeaders();
    const created = await fetch(`${base}/api/workspaces`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'narrowing' }),
    });
    const workspaceId = ((await created.json()) as any).workspace.id as string;
    const fragments = `/api/memory-fragments?workspaceId=${workspaceId}`;
    expect((await bearer(narrowed.body.access_token, fragments)).status).toBe(403);
    // The grant, and the refresh token that came with the narrowed access token, keep all three.
    const { grants } = (await (
      await fetch(`${base}/api/agent-grants`, { headers: await sessionHeaders() })
    ).json()) as any;
    expect(grants.find((g: any) => g.scopes.length === 3 && g.issuer === idp.issuer)).toBeTruthy();
    const widened = await refresh(narrowed.body.refresh_token);
    expect([widened.status, widened.body.scope]).toEqual([200, granted]);
    expect(((await (await bearer(widened.body.access_token)).json()) as any).credential.scopes).toEqual(
      granted.split(' '),
    );
  });

  it('a reused refresh token revokes its whole family', async () => {
    const first = await tokensFor(user.email);
    const second = (await (
      await form('/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token })
    ).json()) as any;
    expect((await bearer(second.access_token)).status).toBe(200);
    const reuse = await form('/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as any).error).toBe('invalid_grant');
    expect((await bearer(second.access_token)).status).toBe(401);
    expect((await bearer(first.access_token)).status).toBe(401);
    const later = await form('/oauth2/token', { grant_type: 'refresh_token', refresh_token: second.refresh_token });
    expect(((await later.json()) as any).error).toBe('invalid_grant');
  });

  it('refuses every bad ID-JAG with invalid_grant, and stores nothing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const replayed = await idp.idJag(base, { email: user.email });
    expect((await exchange(replayed)).status).toBe(200);
    const valid = await idp.idJag(base, { email: user.email });
    const [h, p, s] = valid.split('.');
    const tampered = `${h}.${b64url({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), email: 'admin@example.test' })}.${s}`;
    const payload = {
      iss: idp.issuer,
      sub: 's',
      aud: base,
      client_id: 'c',
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + 300,
      email: user.email,
      email_verified: true,
    };
    const cases: Record<string, string> = {
      'wrong typ': await idp.idJag(base, { email: user.email }, { typ: 'JWT' }),
      // An ID token or an access token the provider issued for this audience carries no typ (or
      // JWT): only an explicitly typed ID-JAG is a grant (RFC 8725 §3.11).
      'no typ': await idp.idJag(base, { email: user.email }, { typ: undefined }),
      'alg none': `${b64url({ alg: 'none', typ: 'oauth-id-jag+jwt' })}.${b64url(payload)}.`,
      'HS256 with the public key': await new SignJWT({ ...payload, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'HS256', typ: 'oauth-id-jag+jwt' })
        .sign(new TextEncoder().encode(idp.publicKeyPem)),
      'unknown issuer': await idp.idJag(base, { email: user.email, iss: 'https://stranger.example' }),
      'unknown kid': await idp.signWithStrangerKey(
        { ...payload, jti: crypto.randomUUID() },
        { typ: 'oauth-id-jag+jwt' },
      ),
      'wrong audience': await idp.idJag('https://another-server.example', { email: user.email }),
      expired: await idp.idJag(base, { email: user.email, iat: now - 900, exp: now - 600 }),
      'not yet valid': await idp.idJag(base, { email: user.email, nbf: now + 600 }),
      'replayed jti': replayed,
      'unverified email': await idp.idJag(base, { email: user.email, email_verified: false }),
      'email without an account': await idp.idJag(base, { email: 'nobody@example.test' }),
      'tampered payload': tampered,
    };
    const before = (await (await fetch(`${base}/api/agent-grants`, { headers: await sessionHeaders() })).json()) as any;
    for (const [name, assertion] of Object.entries(cases)) {
      const res = await exchange(assertion);
      const body = (await res.json()) as any;
      expect({ name, status: res.status, error: body.error }).toEqual({ name, status: 400, error: 'invalid_grant' });
      expect(typeof body.error_description).toBe('string');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // /agent/identity verifies the same way (a clear error, no just-in-time account; no typ refused).
    const untyped = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'identity_assertion',
        assertion_type: 'urn:ietf:params:oauth:token-type:id-jag',
        assertion: await idp.idJag(base, { email: user.email }, { typ: undefined }),
      }),
    });
    expect([untyped.status, ((await untyped.json()) as any).error]).toEqual([400, 'invalid_grant']);
    const noAccount = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'identity_assertion',
        assertion_type: 'urn:ietf:params:oauth:token-type:id-jag',
        assertion: await idp.idJag(base, { email: 'nobody@example.test' }),
      }),
    });
    expect(noAccount.status).toBe(400);
    expect(((await noAccount.json()) as any).error_description).toMatch(/no account/i);
    const after = (await (await fetch(`${base}/api/agent-grants`, { headers: await sessionHeaders() })).json()) as any;
    expect(after.grants.length).toBe(before.grants.length);
  });

  it('binds a verified assertion at /agent/identity', async () => {
    const res = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'identity_assertion',
        assertion_type: 'urn:ietf:params:oauth:token-type:id-jag',
        assertion: await idp.idJag(base, { email: user.email }),
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ user_id: user.id, agent_name: 'research-agent' });
  });

  it('lists the user’s agent grants and revokes one at once', async () => {
    const tokens = await tokensFor(user.email);
    const headers = await sessionHeaders();
    const { grants } = (await (await fetch(`${base}/api/agent-grants`, { headers })).json()) as any;
    expect(grants.length).toBeGreaterThan(0);
    expect(grants[0]).toMatchObject({ agentName: 'research-agent', method: 'identity_assertion', issuer: idp.issuer });
    expect(JSON.stringify(grants)).not.toContain('kwa_');
    expect((await bearer(tokens.access_token)).status).toBe(200);
    const del = await fetch(`${base}/api/agent-grants/${grants[0].id}`, { method: 'DELETE', headers });
    expect(del.status).toBe(204);
    expect((await bearer(tokens.access_token)).status).toBe(401);
    // Another user's grant is 404.
    const other = await userWithToken(base, admin.ADMIN_TOKEN);
    const mine = await tokensFor(user.email);
    const { grants: now } = (await (await fetch(`${base}/api/agent-grants`, { headers })).json()) as any;
    const res = await fetch(`${base}/api/agent-grants/${now[0].id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(res.status).toBe(404);
    expect((await bearer(mine.access_token)).status).toBe(200);
  });

  describe('security events', () => {
    it('session-revoked ends the grants the provider’s assertions made, at once', async () => {
      // An account of its own: the event also refuses the provider's assertions about it issued
      // until then (its second included), which the other tests' exchanges for `user` would be.
      const person = await createUser(base, admin.ADMIN_TOKEN);
      const tokens = await tokensFor(person.email);
      const set = await idp.securityEvent(
        base,
        { [EVENT('session-revoked')]: {} },
        { sub_id: { format: 'email', email: person.email } },
      );
      const res = await pushEvent(set);
      expect(res.status).toBe(202);
      expect((await bearer(tokens.access_token)).status).toBe(401);
      // An assertion issued before the event (or in its second) is refused even now; the
      // provider's next one (a later iat) is accepted.
      const setIat = (JSON.parse(Buffer.from(set.split('.')[1], 'base64url').toString()) as { iat: number }).iat;
      const stale = await exchange(await idp.idJag(base, { email: person.email, iat: setIat }));
      expect([stale.status, ((await stale.json()) as any).error]).toEqual([400, 'invalid_grant']);
      await tokensFor(person.email, { iat: setIat + 1 });
    });

    it('credential-change and identifier-changed (iss_sub subject) end the subject’s grants', async () => {
      for (const type of ['credential-change', 'risc:identifier-changed']) {
        const tokens = await tokensFor(user.email, { sub: `subject-${type}` });
        const res = await pushEvent(
          await idp.securityEvent(
            base,
            { [EVENT(type)]: {} },
            { sub_id: { format: 'iss_sub', iss: idp.issuer, sub: `subject-${type}` } },
          ),
        );
        expect(res.status, type).toBe(202);
        expect((await bearer(tokens.access_token)).status, type).toBe(401);
      }
    });

    it('account-credential-change-required ends agent grants and browser sessions, the account stays', async () => {
      const person = await createUser(base, admin.ADMIN_TOKEN);
      const tokens = await tokensFor(person.email);
      const session = await signIn(base, person.email, person.password);
      const res = await pushEvent(
        await idp.securityEvent(base, {
          [EVENT('risc:account-credential-change-required')]: { subject: { format: 'email', email: person.email } },
        }),
      );
      expect(res.status).toBe(202);
      expect((await bearer(tokens.access_token)).status).toBe(401);
      expect((await fetch(`${base}/api/profile`, { headers: { cookie: session.cookie } })).status).toBe(401);
      await signIn(base, person.email, person.password);
    });

    it('account-disabled and account-purged disable the account: every credential stops', async () => {
      for (const type of ['risc:account-disabled', 'risc:account-purged']) {
        const person = await userWithToken(base, admin.ADMIN_TOKEN);
        const tokens = await tokensFor(person.user.email);
        expect((await bearer(person.token)).status).toBe(200);
        const res = await pushEvent(
          await idp.securityEvent(
            base,
            { [EVENT(type)]: {} },
            { sub_id: { format: 'email', email: person.user.email } },
          ),
        );
        expect(res.status, type).toBe(202);
        expect((await bearer(tokens.access_token)).status, type).toBe(401);
        expect((await bearer(person.token)).status, type).toBe(401);
        const signInAgain = await fetch(`${base}/api/auth/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: person.user.email, password: person.user.password }),
        });
        expect(signInAgain.status).toBe(401);
      }
    });

    it('accepts a SET without exp, as RFC 8417 writes them; iat bounds its age and its jti is still single-use', async () => {
      const tokens = await tokensFor(user.email, { sub: 'subject-without-exp' });
      const now = Math.floor(Date.now() / 1000);
      const events = { [EVENT('session-revoked')]: {} };
      const subject = { sub_id: { format: 'iss_sub', iss: idp.issuer, sub: 'subject-without-exp' } };
      const unexpiring = await idp.securityEvent(base, events, { ...subject, exp: undefined });
      expect(JSON.parse(Buffer.from(unexpiring.split('.')[1], 'base64url').toString())).not.toHaveProperty('exp');
      const pushed = await pushEvent(unexpiring);
      expect(pushed.status, await pushed.clone().text()).toBe(202);
      expect((await bearer(tokens.access_token)).status).toBe(401);
      // The same SET again is answered 202 (a provider's retry) but not applied again: a grant made
      // since stays. One issued over an hour ago, or without iat, is refused.
      // (Issued after the event: one of its second would be refused as revoked by it.)
      const unexpiringIat = (
        JSON.parse(Buffer.from(unexpiring.split('.')[1], 'base64url').toString()) as { iat: number }
      ).iat;
      const since = await tokensFor(user.email, { sub: 'subject-without-exp', iat: unexpiringIat + 1 });
      expect((await pushEvent(unexpiring)).status).toBe(202);
      expect((await bearer(since.access_token)).status).toBe(200);
      const refusals: Array<[string, string]> = [
        ['older than an hour', await idp.securityEvent(base, events, { ...subject, exp: undefined, iat: now - 7200 })],
        ['without iat', await idp.securityEvent(base, events, { ...subject, exp: undefined, iat: undefined })],
      ];
      for (const [name, set] of refusals) {
        const res = await pushEvent(set);
        expect({ name, status: res.status, err: ((await res.json()) as any).err }).toEqual({
          name,
          status: 400,
          err: 'invalid_request',
        });
      }
      // An ID-JAG still needs exp.
      const res = await exchange(await idp.idJag(base, { email: user.email, exp: undefined }));
      const body = (await res.json()) as any;
      expect([res.status, body.error, body.error_description]).toEqual([
        400,
        'invalid_grant',
        expect.stringContaining('exp'),
      ]);
    });

    it('answers 202 to a SET delivered again after it was applied, and does not apply it again', async () => {
      // A provider retries after a 5xx (a 504 whose work was done): its record must say "delivered".
      const person = await userWithToken(base, admin.ADMIN_TOKEN);
      const set = await idp.securityEvent(
        base,
        { [EVENT('risc:account-disabled')]: {} },
        { sub_id: { format: 'email', email: person.user.email } },
      );
      expect((await pushEvent(set)).status).toBe(202);
      expect((await bearer(person.token)).status).toBe(401);
      // An administrator re-enables the account; the retry changes nothing.
      const enabled = await fetch(`${base}/api/admin/users/${person.user.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'active' }),
      });
      expect(enabled.status).toBe(200);
      const retried = await pushEvent(set);
      expect(retried.status, await retried.clone().text()).toBe(202);
      expect((await bearer(person.token)).status).toBe(200);
    });

    it('refuses bad SETs with RFC 8935 errors and changes nothing', async () => {
      const tokens = await tokensFor(user.email);
      const now = Math.floor(Date.now() / 1000);
      const events = { [EVENT('risc:account-disabled')]: {} };
      const subject = { sub_id: { format: 'email', email: user.email } };
      const cases: Array<[string, string, string]> = [
        [
          'bad signature',
          (await idp.securityEvent(base, events, subject)).replace(/.{6}$/, 'AAAAAA'),
          'authentication_failed',
        ],
        [
          'unknown kid',
          await idp.signWithStrangerKey(
            { iss: idp.issuer, aud: base, jti: crypto.randomUUID(), iat: now, exp: now + 60, events, ...subject },
            { typ: 'secevent+jwt' },
          ),
          'invalid_key',
        ],
        [
          'wrong audience',
          await idp.securityEvent('https://another-server.example', events, subject),
          'invalid_audience',
        ],
        [
          'unknown issuer',
          await idp.securityEvent(base, events, { ...subject, iss: 'https://stranger.example' }),
          'invalid_issuer',
        ],
        ['wrong typ', await idp.securityEvent(base, events, subject, { typ: 'JWT' }), 'invalid_request'],
        ['no typ', await idp.securityEvent(base, events, subject, { typ: undefined }), 'invalid_request'],
      ];
      for (const [name, set, err] of cases) {
        const res = await pushEvent(set);
        const body = (await res.json()) as any;
        expect({ name, status: res.status, err: body.err }).toEqual({ name, status: 400, err });
        expect(typeof body.description).toBe('string');
      }
      expect((await pushEvent('not a jwt', 'application/json')).status).toBe(400);
      // Nothing changed: the account and its agent token still work.
      expect((await bearer(tokens.access_token)).status).toBe(200);
    });
  });

  async function sessionHeaders(): Promise<Record<string, string>> {
    const session = await signIn(base, user.email, user.password);
    return { cookie: session.cookie, 'x-csrf-token': session.csrf };
  }
});
