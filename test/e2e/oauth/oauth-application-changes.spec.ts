import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, type SessionAuth } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

const REDIRECT = 'https://app.example.test/callback';
const OTHER_REDIRECT = 'https://app.example.test/other-callback';

/**
 * An application that its owner changes while it is being used, over real HTTP against the
 * embedded platform: a consent page shown before the change is decided against the application
 * as it is now (a removed redirect URI, a disabled application, narrowed scopes), so is the
 * code exchange, and disabling stops the application's live access tokens at once on the
 * gateway (its authentication cache is dropped by the broadcast: the cache TTL here is five
 * minutes), until it is enabled again.
 */
describe('OAuth applications changed while in use', () => {
  const dataDir = tempDir('kw-oauth-changes-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let session: SessionAuth;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };
  /** A public client (PKCE is its proof), so the token requests need no secret. */
  const createApp = async (redirectUris = [REDIRECT], scopes = ['workspaces:read', 'fragments:read']) => {
    const res = await api('POST', '/api/applications', {
      name: 'Notes sync',
      clientType: 'public',
      redirectUris,
      scopes,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.application.id as string;
  };
  /** Shows the consent page signed in; answers the PKCE verifier and where to send the decision. */
  const showConsent = async (clientId: string, redirectUri = REDIRECT, scope = 'workspaces:read fragments:read') => {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${base}/oauth2/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: 'st-1',
      scope,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const page = await fetch(url, { headers: { cookie: session.cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(await page.text())![1];
    return { verifier, redirectUri, decisionUrl };
  };
  const decide = (decisionUrl: string, decision: 'approve' | 'deny', scopes = ['workspaces:read', 'fragments:read']) =>
    api('POST', decisionUrl, { decision, scopes });
  const exchange = async (clientId: string, redirectTo: string, consent: { verifier: string; redirectUri: string }) => {
    const res = await form({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: new URL(redirectTo).searchParams.get('code')!,
      redirect_uri: consent.redirectUri,
      code_verifier: consent.verifier,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const form = (params: Record<string, string>) =>
    fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  const bearer = (token: string) => fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
      // Only the CredentialsChanged broadcast can drop a cached authentication within the test.
      AUTH_CACHE_TTL_MS: '300000',
    });
    base = platform.url;
    const owner = await createUser(base, admin.ADMIN_TOKEN);
    session = await signIn(base, owner.email, owner.password);
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends nothing to a redirect URI removed while the consent page was shown, approved or denied', async () => {
    const id = await createApp([REDIRECT, OTHER_REDIRECT]);
    const approve = await showConsent(id, OTHER_REDIRECT);
    const deny = await showConsent(id, OTHER_REDIRECT);
    expect((await api('PATCH', `/api/applications/${id}`, { redirectUris: [REDIRECT] })).status).toBe(200);
    for (const [consent, decision] of [
      [approve, 'approve'],
      [deny, 'deny'],
    ] as const) {
      const res = await decide(consent.decisionUrl, decision);
      expect([decision, res.status, res.body.code], res.text).toEqual([decision, 409, 'CONFLICT']);
      expect(res.text).not.toContain(OTHER_REDIRECT);
    }
  });

  it('refuses the decision once the application is disabled, and the code of a disabled one', async () => {
    const id = await createApp();
    const consent = await showConsent(id);
    const approvedBefore = await showConsent(id);
    const approved = await decide(approvedBefore.decisionUrl, 'approve');
    expect(approved.status).toBe(200);
    expect((await api('PATCH', `/api/applications/${id}`, { status: 'disabled' })).status).toBe(200);
    const refused = await decide(consent.decisionUrl, 'approve');
    expect([refused.status, refused.body.code]).toEqual([409, 'CONFLICT']);
    expect(refused.text).not.toContain('code=');
    const late = await exchange(id, approved.body.redirectTo, approvedBefore);
    expect([late.status, late.body.error]).toEqual([401, 'invalid_client']);
  });

  it('does not exchange a code for a redirect URI removed after the approval', async () => {
    const id = await createApp([REDIRECT, OTHER_REDIRECT]);
    const consent = await showConsent(id, OTHER_REDIRECT);
    const approved = await decide(consent.decisionUrl, 'approve');
    expect(approved.status).toBe(200);
    expect((await api('PATCH', `/api/applications/${id}`, { redirectUris: [REDIRECT] })).status).toBe(200);
    const res = await exchange(id, approved.body.redirectTo, consent);
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    expect(res.body.access_token).toBeUndefined();
  });

  it('issues only the scopes the application may still ask for, narrowed before the decision or the exchange', async () => {
    const id = await createApp();
    // Narrowed while the page was shown: the approval drops the scope.
    const consent = await showConsent(id);
    expect((await api('PATCH', `/api/applications/${id}`, { scopes: ['workspaces:read'] })).status).toBe(200);
    const approved = await decide(consent.decisionUrl, 'approve');
    expect(approved.status, approved.text).toBe(200);
    const tokens = await exchange(id, approved.body.redirectTo, consent);
    expect([tokens.status, tokens.body.scope]).toEqual([200, 'workspaces:read']);
    // Only the dropped scope approved: nothing left to grant.
    const onlyDropped = await showConsent(id, REDIRECT, 'workspaces:read');
    expect((await api('PATCH', `/api/applications/${id}`, { scopes: ['fragments:read'] })).status).toBe(200);
    const none = await decide(onlyDropped.decisionUrl, 'approve', ['workspaces:read']);
    expect([none.status, none.body.code]).toEqual([409, 'CONFLICT']);

    // Narrowed between the approval and the exchange: the code issues the rest.
    const app2 = await createApp();
    const consent2 = await showConsent(app2);
    const approved2 = await decide(consent2.decisionUrl, 'approve');
    expect((await api('PATCH', `/api/applications/${app2}`, { scopes: ['fragments:read'] })).status).toBe(200);
    const tokens2 = await exchange(app2, approved2.body.redirectTo, consent2);
    expect([tokens2.status, tokens2.body.scope]).toEqual([200, 'fragments:read']);
    const grants = (await api('GET', '/api/agent-grants')).body.grants as Array<{ scopes: string[] }>;
    expect(grants.every((g) => g.scopes.length === 1)).toBe(true);
  });

  it('refreshes an earlier grant with only the scopes the application may still ask for', async () => {
    const id = await createApp();
    const consent = await showConsent(id);
    const tokens = await exchange(id, (await decide(consent.decisionUrl, 'approve')).body.redirectTo, consent);
    expect([tokens.status, tokens.body.scope]).toEqual([200, 'workspaces:read fragments:read']);
    const refresh = async (refreshToken: string) => {
      const res = await form({ grant_type: 'refresh_token', client_id: id, refresh_token: refreshToken });
      return { status: res.status, body: (await res.json()) as any };
    };
    const scopesOf = async (accessToken: string) =>
      (
        (await (
          await fetch(`${base}/api/auth/validate-token`, { headers: { authorization: `Bearer ${accessToken}` } })
        ).json()) as any
      ).credential.scopes;

    // Narrowed after the grant: every later refresh mints the rest only, rotation after rotation.
    expect((await api('PATCH', `/api/applications/${id}`, { scopes: ['workspaces:read'] })).status).toBe(200);
    const narrowed = await refresh(tokens.body.refresh_token);
    expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'workspaces:read']);
    expect(await scopesOf(narrowed.body.access_token)).toEqual(['workspaces:read']);
    const again = await refresh(narrowed.body.refresh_token);
    expect([again.status, again.body.scope]).toEqual([200, 'workspaces:read']);

    // None of the grant's scopes left: invalid_grant, and the refresh token is not spent, nor
    // the grant revoked: given its scopes back, the application refreshes as before.
    expect((await api('PATCH', `/api/applications/${id}`, { scopes: ['files:read'] })).status).toBe(200);
    const none = await refresh(again.body.refresh_token);
    expect([none.status, none.body.error]).toEqual([400, 'invalid_grant']);
    expect(none.body.access_token).toBeUndefined();
    expect(
      (await api('PATCH', `/api/applications/${id}`, { scopes: ['workspaces:read', 'fragments:read'] })).status,
    ).toBe(200);
    const restored = await refresh(again.body.refresh_token);
    expect([restored.status, restored.body.scope]).toEqual([200, 'workspaces:read fragments:read']);
  });

  it('stops the live access tokens of a disabled application at once, and lets them work again once enabled', async () => {
    const id = await createApp();
    const consent = await showConsent(id);
    const tokens = await exchange(id, (await decide(consent.decisionUrl, 'approve')).body.redirectTo, consent);
    expect(tokens.status).toBe(200);
    // Authenticated once: the gateway answers the next requests from its cache.
    expect((await bearer(tokens.body.access_token)).status).toBe(200);
    expect((await bearer(tokens.body.access_token)).status).toBe(200);
    expect((await api('PATCH', `/api/applications/${id}`, { status: 'disabled' })).status).toBe(200);
    const refused = await bearer(tokens.body.access_token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).code).toBe('UNAUTHENTICATED');
    const refresh = await form({
      grant_type: 'refresh_token',
      client_id: id,
      refresh_token: tokens.body.refresh_token,
    });
    expect([refresh.status, ((await refresh.json()) as any).error]).toEqual([401, 'invalid_client']);
    // The grant was kept: enabled again, the same access token works.
    expect((await api('PATCH', `/api/applications/${id}`, { status: 'active' })).status).toBe(200);
    expect((await bearer(tokens.body.access_token)).status).toBe(200);
  });
});
