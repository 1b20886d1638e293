import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, type SessionAuth, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { connectMcp } from '../mcp/mcp-fixture.js';

const REDIRECT = 'https://app.example.test/callback';

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/**
 * OAuth applications over real HTTP against the embedded platform: registration and secrets,
 * openid-client's authorization code flow with PKCE against a confidential application, the
 * refusals the authorization server owes (PKCE, redirect URIs, codes, client secrets,
 * audiences, denial), and secrets that never appear in a listing or a log line. The consent is
 * given over HTTP with a signed-in session here; the browser journey is
 * mcp-oauth-browser.spec.ts.
 */
describe('OAuth applications and the authorization code flow', () => {
  const dataDir = tempDir('kw-oauth-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let owner: TestUser;
  let session: SessionAuth;
  const secrets: string[] = [];

  const api = async (method: string, path: string, body?: unknown, auth: SessionAuth = session) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        cookie: auth.cookie,
        'x-csrf-token': auth.csrf,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };
  const createApp = async (body: Record<string, unknown> = {}) => {
    const res = await api('POST', '/api/applications', {
      name: 'Notes sync',
      redirectUris: [REDIRECT],
      scopes: ['workspaces:read', 'fragments:read', 'search:read'],
      ...body,
    });
    expect(res.status, res.text).toBe(201);
    if (res.body.clientSecret) secrets.push(res.body.clientSecret);
    return res.body as { application: { id: string }; clientSecret?: string };
  };
  /** Opens the consent page signed in and answers where the decision sends the browser. */
  const consent = async (authorizeUrl: string, decision: 'approve' | 'deny' = 'approve', who = session) => {
    const page = await fetch(authorizeUrl, { headers: { cookie: who.cookie }, redirect: 'manual' });
    if (page.status !== 200) return { page };
    const html = await page.text();
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(html)?.[1];
    expect(decisionUrl, html.slice(0, 500)).toMatch(/^\/api\/oauth2\/authorizations\/[0-9a-f-]{36}\/decision$/);
    const res = await api('POST', decisionUrl!, { decision, scopes: ['workspaces:read', 'fragments:read'] }, who);
    expect(res.status, res.text).toBe(200);
    return { page, redirectTo: new URL(res.body.redirectTo as string) };
  };
  const authorizeUrl = (clientId: string, params: Record<string, string | undefined>) => {
    const url = new URL(`${base}/oauth2/authorize`);
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      state: 'st-1',
      scope: 'workspaces:read fragments:read',
      ...params,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  };
  const tokenRequest = (params: Record<string, string>, basic?: [string, string]) =>
    fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(basic
          ? {
              authorization: `Basic ${Buffer.from(`${encodeURIComponent(basic[0])}:${encodeURIComponent(basic[1])}`).toString('base64')}`,
            }
          : {}),
      },
      body: new URLSearchParams(params).toString(),
    });

  /** A public client's code exchange (PKCE, no secret): its status and JSON body. */
  const redeemCode = async (clientId: string, code: string, verifier: string) => {
    const res = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      LOG_LEVEL: 'debug',
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
      OAUTH_CODE_TTL_SECONDS: '5',
      OAUTH_REGISTRATIONS_PER_HOUR: '3',
    });
    base = platform.url;
    owner = await createUser(base, admin.ADMIN_TOKEN);
    session = await signIn(base, owner.email, owner.password);
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, lists, updates, rotates and deletes applications; secrets are shown once', async () => {
    const created = await createApp();
    expect(created.clientSecret).toMatch(/^kws_/);
    const id = created.application.id;
    const listed = await api('GET', '/api/applications');
    expect(listed.body.applications.map((a: { id: string }) => a.id)).toContain(id);
    expect(listed.text).not.toContain(created.clientSecret);
    expect(listed.body.applications[0].secretPrefix).toBe(created.clientSecret!.slice(0, 12));
    const patched = await api('PATCH', `/api/applications/${id}`, { name: 'Notes sync 2', status: 'disabled' });
    expect(patched.body).toMatchObject({ name: 'Notes sync 2', status: 'disabled' });
    // A disabled application cannot authorize: shown on the page, no redirect.
    const page = await fetch(authorizeUrl(id, { ...pkceParams() }), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    await api('PATCH', `/api/applications/${id}`, { status: 'active' });
    const rotated = await api('POST', `/api/applications/${id}/secret`, { overlapHours: 1 });
    expect(rotated.status).toBe(201);
    secrets.push(rotated.body.clientSecret);
    expect(rotated.body.application.previousSecretExpiresAt).toBeTruthy();
    // Public clients have no secret; redirect URIs follow the rules.
    const pub = await createApp({
      clientType: 'public',
      redirectUris: ['http://127.0.0.1/cb', 'com.example.notes:/cb'],
    });
    expect(pub.clientSecret).toBeUndefined();
    for (const uri of ['http://app.example.test/cb', 'https://a.example/cb#frag', 'javascript:alert(1)', 'notaurl'])
      expect((await api('POST', '/api/applications', { name: 'x', redirectUris: [uri] })).status, uri).toBe(400);
    expect(
      (await api('POST', '/api/applications', { name: 'x', redirectUris: [REDIRECT], scopes: ['tokens:manage'] }))
        .status,
    ).toBe(400);
    // Another user sees none of it.
    const other = await createUser(base, admin.ADMIN_TOKEN);
    const otherSession = await signIn(base, other.email, other.password);
    expect((await api('GET', `/api/applications/${id}`, undefined, otherSession)).status).toBe(404);
    expect((await api('DELETE', `/api/applications/${id}`, undefined, otherSession)).status).toBe(404);
    expect((await api('DELETE', `/api/applications/${pub.application.id}`)).status).toBe(204);
    expect((await api('GET', `/api/applications/${pub.application.id}`)).status).toBe(404);
  });

  it('openid-client: authorization code with PKCE for a confidential application, then a REST call', async () => {
    const app = await createApp();
    const config = await oidc.discovery(
      new URL(base),
      app.application.id,
      undefined,
      oidc.ClientSecretBasic(app.clientSecret!),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().code_challenge_methods_supported).toEqual(['S256']);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'workspaces:read fragments:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const { redirectTo } = await consent(url.href);
    expect(redirectTo!.searchParams.get('state')).toBe(state);
    const tokens = await oidc.authorizationCodeGrant(config, redirectTo!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.scope).toBe('workspaces:read fragments:read');
    const me = await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    // Outside the approved scopes: 403.
    const write = await fetch(`${base}/api/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'nope' }),
    });
    expect(write.status).toBe(403);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(
      (await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${refreshed.access_token}` } }))
        .status,
    ).toBe(200);
    // The user sees the application among the grants, and revokes it.
    const { body } = await api('GET', '/api/agent-grants');
    const grant = body.grants.find((g: { method: string }) => g.method === 'authorization_code');
    expect(grant).toMatchObject({ agentName: 'Notes sync' });
    expect((await api('DELETE', `/api/agent-grants/${grant.id}`)).status).toBe(204);
    expect(
      (await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${refreshed.access_token}` } }))
        .status,
    ).toBe(401);
  });

  it('serves a consent page that cannot be framed, whose decision needs the session and its CSRF token', async () => {
    const app = await createApp();
    const url = authorizeUrl(app.application.id, pkceParams());
    const page = await fetch(url, { headers: { cookie: session.cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(await page.text())![1];
    const post = (headers: Record<string, string>) =>
      fetch(`${base}${decisionUrl}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ decision: 'approve', scopes: ['workspaces:read'] }),
      });
    const noCsrf = await post({ cookie: session.cookie });
    expect([noCsrf.status, ((await noCsrf.json()) as any).code]).toEqual([403, 'CSRF_FAILED']);
    const token = await fetch(`${base}/api/tokens`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'pat', scopes: ['*'] }),
    });
    const pat = ((await token.json()) as any).token as string;
    expect((await post({ authorization: `Bearer ${pat}` })).status).toBe(403);
    expect((await post({ cookie: session.cookie, 'x-csrf-token': session.csrf })).status).toBe(200);
  });

  it("decides a request only from the browser session shown its review: another account's is 404", async () => {
    const app = await createApp();
    const { verifier, challenge } = pkce();
    const page = await fetch(
      authorizeUrl(app.application.id, { code_challenge: challenge, code_challenge_method: 'S256' }),
      {
        headers: { cookie: session.cookie },
      },
    );
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(await page.text())![1];
    const approve = { decision: 'approve', scopes: ['workspaces:read'] };
    // Another account that learned the id: the same 404 as an unknown request, and no code.
    const other = await createUser(base, admin.ADMIN_TOKEN);
    const otherSession = await signIn(base, other.email, other.password);
    const foreign = await api('POST', decisionUrl, approve, otherSession);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    const unknown = await api(
      'POST',
      `/api/oauth2/authorizations/${crypto.randomUUID()}/decision`,
      approve,
      otherSession,
    );
    expect(foreign.body.error).toBe(unknown.body.error);
    // The same account signed in elsewhere (another browser) was not shown this page either.
    expect((await api('POST', decisionUrl, approve, await signIn(base, owner.email, owner.password))).status).toBe(404);
    // The session that was shown the review decides, and the code is for its account.
    const mine = await api('POST', decisionUrl, approve);
    expect(mine.status, mine.text).toBe(200);
    const exchanged = await tokenRequest(
      {
        grant_type: 'authorization_code',
        code: new URL(mine.body.redirectTo).searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
      [app.application.id, app.clientSecret!],
    );
    const { access_token } = (await exchanged.json()) as any;
    const who = await fetch(`${base}/api/auth/validate-token`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(((await who.json()) as any).user.email).toBe(owner.email);
  });

  it('refuses what OAuth 2.1 says to refuse', async () => {
    const app = await createApp();
    const id = app.application.id;
    const secret = app.clientSecret!;
    const { verifier, challenge } = pkce();
    const withPkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const redirected = async (params: Record<string, string | undefined>) => {
      const res = await fetch(authorizeUrl(id, params), { redirect: 'manual' });
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!);
    };
    // Missing PKCE and plain PKCE: back to the client with invalid_request (and its state).
    const missing = await redirected({});
    expect([
      missing.origin + missing.pathname,
      missing.searchParams.get('error'),
      missing.searchParams.get('state'),
    ]).toEqual([REDIRECT, 'invalid_request', 'st-1']);
    expect(
      (await redirected({ code_challenge: challenge, code_challenge_method: 'plain' })).searchParams.get('error'),
    ).toBe('invalid_request');
    expect((await redirected({ code_challenge: challenge })).searchParams.get('error')).toBe('invalid_request');
    // A redirect URI not registered: the error is on the page, nothing is sent anywhere.
    const foreign = await fetch(authorizeUrl(id, { ...withPkce, redirect_uri: 'https://evil.example/cb' }), {
      redirect: 'manual',
    });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    expect(await foreign.text()).toContain('redirect_uri is not one the application registered');
    const unknown = await fetch(authorizeUrl(crypto.randomUUID(), withPkce), { redirect: 'manual' });
    expect(unknown.status).toBe(400);

    // Consent denied: access_denied goes back with the state.
    const denied = await consent(authorizeUrl(id, withPkce), 'deny');
    expect([denied.redirectTo!.searchParams.get('error'), denied.redirectTo!.searchParams.get('state')]).toEqual([
      'access_denied',
      'st-1',
    ]);

    const exchange = (code: string, extra: Record<string, string> = {}, basic: [string, string] = [id, secret]) =>
      tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra },
        basic,
      );
    const codeOf = async () => (await consent(authorizeUrl(id, withPkce))).redirectTo!.searchParams.get('code')!;

    // Wrong verifier, wrong secret, wrong redirect URI: refused, and the code stays unused... no:
    // a refused exchange leaves the code as it was, so the right request still works once.
    const code = await codeOf();
    const wrongVerifier = await exchange(code, { code_verifier: pkce().verifier });
    expect([wrongVerifier.status, ((await wrongVerifier.json()) as any).error]).toEqual([400, 'invalid_grant']);
    const wrongSecret = await exchange(code, {}, [id, 'kws_wrong']);
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as any).error).toBe('invalid_client');
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic/);
    const noVerifier = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, [
      id,
      secret,
    ]);
    expect(((await noVerifier.json()) as any).error).toBe('invalid_request');
    const noRedirect = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier }, [
      id,
      secret,
    ]);
    expect((await noRedirect.json()) as any).toMatchObject({
      error: 'invalid_grant',
      error_description: 'redirect_uri is required: the one of the authorization request',
    });
    const good = await exchange(code);
    expect(good.status).toBe(200);
    expect([good.headers.get('cache-control'), good.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    const issued = (await good.json()) as any;
    expect(
      (await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${issued.access_token}` } })).status,
    ).toBe(200);
    // A reused code: refused, and the tokens it issued are revoked.
    const reused = await exchange(code);
    expect(((await reused.json()) as any).error).toBe('invalid_grant');
    expect(
      (await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${issued.access_token}` } })).status,
    ).toBe(401);
    // An expired code (OAUTH_CODE_TTL_SECONDS=5 here).
    const late = await codeOf();
    await new Promise((r) => setTimeout(r, 5500));
    expect(((await (await exchange(late)).json()) as any).error).toBe('invalid_grant');
  });

  it('refuses an empty scope list on create and update instead of widening to the defaults', async () => {
    const app = await createApp({ scopes: ['profile:read', 'fragments:read'] });
    const id = app.application.id;
    const emptied = await api('PATCH', `/api/applications/${id}`, { scopes: [] });
    expect([emptied.status, emptied.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await api('GET', `/api/applications/${id}`)).body.scopes).toEqual(['profile:read', 'fragments:read']);
    const created = await api('POST', '/api/applications', { name: 'Empty', redirectUris: [REDIRECT], scopes: [] });
    expect([created.status, created.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    // Omitted on create: the agent defaults, as documented.
    const defaulted = await createApp({ scopes: undefined });
    expect(defaulted.application).toMatchObject({ scopes: expect.arrayContaining(['workspaces:read']) });
  });

  it('a code presented twice at once: the second presentation revokes what the first issued', async () => {
    const app = await createApp({ clientType: 'public' });
    const id = app.application.id;
    for (let round = 0; round < 4; round++) {
      const { verifier, challenge } = pkce();
      const code = (
        await consent(authorizeUrl(id, { code_challenge: challenge, code_challenge_method: 'S256' }))
      ).redirectTo!.searchParams.get('code')!;
      const answers = await Promise.all([redeemCode(id, code, verifier), redeemCode(id, code, verifier)]);
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers)).toEqual([200, 400]);
      const loser = answers.find((a) => a.status === 400)!;
      expect(loser.body).toMatchObject({
        error: 'invalid_grant',
        error_description: 'The authorization code was used before; the tokens it issued are revoked',
      });
      const winner = answers.find((a) => a.status === 200)!;
      const check = await fetch(`${base}/api/auth/validate-token`, {
        headers: { authorization: `Bearer ${winner.body.access_token}` },
      });
      expect(check.status).toBe(401);
    }
  });

  it('deleting an application while its codes are exchanged leaves none of its grants live or listed', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `Deleted while exchanging ${round}`;
      const id = (await createApp({ name, clientType: 'public' })).application.id;
      const codes: Array<{ code: string; verifier: string }> = [];
      for (let i = 0; i < 6; i++) {
        const { verifier, challenge } = pkce();
        const { redirectTo } = await consent(
          authorizeUrl(id, { code_challenge: challenge, code_challenge_method: 'S256' }),
        );
        codes.push({ code: redirectTo!.searchParams.get('code')!, verifier });
      }
      const exchanges = codes.map(async ({ code, verifier }, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 3));
        return redeemCode(id, code, verifier);
      });
      const deleted = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 8));
        return (await api('DELETE', `/api/applications/${id}`)).status;
      })();
      const [answers, deleteStatus] = await Promise.all([Promise.all(exchanges), deleted]);
      expect(deleteStatus).toBe(204);
      for (const a of answers) {
        if (a.status !== 200) {
          expect(a.status === 400 || a.status === 401, JSON.stringify(a)).toBe(true);
          continue;
        }
        const check = await fetch(`${base}/api/auth/validate-token`, {
          headers: { authorization: `Bearer ${a.body.access_token}` },
        });
        expect(check.status).toBe(401);
      }
      const { grants } = (await api('GET', '/api/agent-grants')).body;
      expect(grants.filter((g: any) => g.agentName === name)).toEqual([]);
    }
  });

  it('binds tokens to a resource: an MCP token is refused on REST, a token for another resource at /api/mcp', async () => {
    const app = await createApp({ scopes: ['workspaces:read', 'search:read', 'fragments:read'] });
    const id = app.application.id;
    const tokenFor = async (resource: string) => {
      const { verifier, challenge } = pkce();
      const { redirectTo } = await consent(
        authorizeUrl(id, { code_challenge: challenge, code_challenge_method: 'S256', resource }),
      );
      const res = await tokenRequest(
        {
          grant_type: 'authorization_code',
          code: redirectTo!.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          resource,
        },
        [id, app.clientSecret!],
      );
      expect(res.status).toBe(200);
      return (await res.json()) as any;
    };
    const mcpTokens = await tokenFor(`${base}/api/mcp`);
    const mcpToken = mcpTokens.access_token as string;
    // A refresh naming another resource (or the whole API): invalid_target, the refresh token unspent.
    const refresh = (resource?: string) =>
      tokenRequest(
        {
          grant_type: 'refresh_token',
          refresh_token: mcpTokens.refresh_token,
          ...(resource === undefined ? {} : { resource }),
        },
        [id, app.clientSecret!],
      );
    for (const resource of [`${base}/api/workspaces`, base]) {
      const moved = await refresh(resource);
      expect([moved.status, ((await moved.json()) as any).error], resource).toEqual([400, 'invalid_target']);
    }
    const same = await refresh(`${base}/api/mcp`);
    expect(same.status).toBe(200);
    const refreshed = (await same.json()) as any;
    expect(
      (await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${refreshed.access_token}` } }))
        .status,
    ).toBe(401);
    const mcp = await connectMcp(base, mcpToken);
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    await mcp.close();
    const rest = await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${mcpToken}` } });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toContain('invalid_token');

    const v1Token = (await tokenFor(`${base}/api/v1`)).access_token as string;
    const atMcp = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${v1Token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(atMcp.status).toBe(401);
    // An invalid token (RFC 6750 3.1), as on every other route, with the discovery parameters kept.
    expect(atMcp.headers.get('www-authenticate')).toBe(
      `Bearer realm="kw", resource_metadata="${base}/.well-known/oauth-protected-resource", ` +
        'scope="workspaces:read profile:read search:read fragments:read fragments:write collections:read files:read", ' +
        'error="invalid_token"',
    );
    // A resource that is not this server: invalid_target, back to the client.
    const other = await fetch(authorizeUrl(id, { ...pkceParams(), resource: 'https://elsewhere.example/api' }), {
      redirect: 'manual',
    });
    expect(new URL(other.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('registers clients dynamically (RFC 7591) within the per-address limit', async () => {
    const register = (body: unknown) =>
      fetch(`${base}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await register({
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      client_name: 'Desk assistant',
      token_endpoint_auth_method: 'none',
      unknown_field: 1,
    });
    expect(ok.status).toBe(201);
    const client = (await ok.json()) as any;
    expect(client).toMatchObject({
      client_name: 'Desk assistant',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(client.client_secret).toBeUndefined();
    const confidential = (await (await register({ redirect_uris: [REDIRECT] })).json()) as any;
    expect(confidential.client_secret).toMatch(/^kws_/);
    secrets.push(confidential.client_secret);
    const bad = await register({ redirect_uris: ['http://evil.example/cb'] });
    expect([bad.status, ((await bad.json()) as any).error]).toEqual([400, 'invalid_redirect_uri']);
    const longName = await register({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(2_001) });
    expect([longName.status, ((await longName.json()) as any).error]).toEqual([400, 'invalid_client_metadata']);
    // OAUTH_REGISTRATIONS_PER_HOUR=3 here and two are registered: of six at once, one is.
    await new Promise((r) => setTimeout(r, 2_000));
    const sent = Date.now() / 1000;
    const burst = await Promise.all(Array.from({ length: 6 }, () => register({ redirect_uris: [REDIRECT] })));
    const answered = Date.now() / 1000;
    expect(burst.map((r) => r.status).sort()).toEqual([201, 429, 429, 429, 429, 429]);
    const limited = burst.find((r) => r.status === 429)!;
    expect(((await limited.json()) as any).error).toBe('temporarily_unavailable');
    // A place frees an hour after the first of the three: Retry-After says when, not a flat hour.
    const freesAt = client.client_id_issued_at + 3600; // issued_at is in whole seconds
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeLessThan(3600);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(freesAt - answered));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(freesAt + 1 - sent));
    const registered = burst.find((r) => r.status === 201)!;
    secrets.push(((await registered.json()) as any).client_secret);
    // Registered clients are not anyone's applications.
    expect((await api('GET', '/api/applications')).text).not.toContain(client.client_id);
  });

  it('never shows a client secret in a listing or a log line', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const listing = (await api('GET', '/api/applications')).text;
    const logs = [...platform.logs.map((l) => JSON.stringify(l)), ...platform.stderr].join('\n');
    for (const secret of secrets) {
      expect(listing.includes(secret)).toBe(false);
      expect(logs.includes(secret)).toBe(false);
    }
  });

  function pkceParams() {
    return { code_challenge: pkce().challenge, code_challenge_method: 'S256' };
  }
});
