import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, authHeaders, createUser, signIn, type SessionAuth } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

const REDIRECT = 'https://app.example.test/callback';
const CLAIM_GRANT = 'urn:kw:agent-auth:grant-type:claim';
const INTERVAL_SECONDS = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Agent grants (OAuth applications' codes, refresh tokens, service-assisted claims) follow the
 * account they are for, over real HTTP against the embedded platform: while the account is
 * disabled no grant of the token endpoint hands out tokens, and what was refused is still
 * there once it is enabled again; the workspaces a person chooses on the consent or claim page
 * are kept only where that person reaches them, by the rule of personal access tokens.
 */
describe('agent grants and their account', () => {
  const dataDir = tempDir('kw-agent-grant-accounts-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;

  const call = async (auth: SessionAuth | string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...authHeaders(auth), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };
  const token = async (params: Record<string, string>) => {
    const res = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const signedInUser = async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    return { user, session: await signIn(base, user.email, user.password) };
  };
  /** A public application of the session's account (PKCE is its proof). */
  const createApp = async (session: SessionAuth) => {
    const res = await call(session, 'POST', '/api/applications', {
      name: 'Notes sync',
      clientType: 'public',
      redirectUris: [REDIRECT],
      scopes: ['workspaces:read', 'fragments:read'],
    });
    expect(res.status, res.text).toBe(201);
    return res.body.application.id as string;
  };
  /** Shows the consent page and decides it; the decision's answer, and how to exchange its code. */
  const consent = async (session: SessionAuth, clientId: string, decision: Record<string, unknown> = {}) => {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${base}/oauth2/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      state: 'st-1',
      scope: 'workspaces:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const page = await fetch(url, { headers: { cookie: session.cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(await page.text())![1];
    const decided = await call(session, 'POST', decisionUrl, {
      decision: 'approve',
      scopes: ['workspaces:read'],
      ...decision,
    });
    const exchange = () =>
      token({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: new URL(decided.body.redirectTo).searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
    return { decided, exchange };
  };
  /** An agent's service_auth claim for `email`, and the claim page as its signed-in person sees it. */
  const claimFor = async (email: string, session: SessionAuth) => {
    const started = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'service_auth', login_hint: email, client_name: 'Research assistant' }),
    });
    expect(started.status).toBe(200);
    const claim = (await started.json()) as { claim: { verification_uri: string }; claim_token: string };
    const page = await (await fetch(claim.claim.verification_uri, { headers: { cookie: session.cookie } })).text();
    const userCode = /id="user-code">([^<]+)</.exec(page)![1];
    const decisionUrl = /"decisionUrl":"([^"]+)"/.exec(page)![1];
    const decide = (decision: Record<string, unknown> = {}) =>
      call(session, 'POST', decisionUrl, {
        decision: 'approve',
        userCode,
        acceptTerms: true,
        scopes: ['workspaces:read'],
        ...decision,
      });
    const poll = () => token({ grant_type: CLAIM_GRANT, claim_token: claim.claim_token });
    return { decide, poll };
  };
  const workspacesOf = async (accessToken: string) =>
    ((await call(accessToken, 'GET', '/api/auth/validate-token')).body as any).credential.workspaces;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      AGENT_CLAIM_POLL_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
    });
    base = platform.url;
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives no tokens for a disabled account from a code, a refresh or a claim, and spends none of them', async () => {
    const { user, session } = await signedInUser();
    const clientId = await createApp(session);
    const first = await consent(session, clientId);
    const tokens = await first.exchange();
    expect(tokens.status).toBe(200);
    const approved = await consent(session, clientId);
    expect(approved.decided.status, approved.decided.text).toBe(200);
    const claim = await claimFor(user.email, session);
    expect((await claim.decide()).status).toBe(200);

    const status = (value: string) =>
      call(admin.ADMIN_TOKEN, 'PATCH', `/api/admin/users/${user.id}`, { status: value });
    expect((await status('disabled')).status).toBe(200);
    const refresh = () =>
      token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.body.refresh_token });
    const whileDisabled = { code: await approved.exchange(), refresh: await refresh(), claim: await claim.poll() };
    expect(Object.values(whileDisabled).map((a) => [a.status, a.body.error, a.body.access_token])).toEqual([
      [400, 'invalid_grant', undefined],
      [400, 'invalid_grant', undefined],
      [400, 'invalid_grant', undefined],
    ]);

    // Re-enabled: the same code, refresh token and claim token work (documented: the account's
    // grants come back), so nothing was spent while it was disabled.
    expect((await status('active')).status).toBe(200);
    await sleep(INTERVAL_SECONDS * 1000 + 200);
    const afterwards = { code: await approved.exchange(), refresh: await refresh(), claim: await claim.poll() };
    for (const [grant, answer] of Object.entries(afterwards)) {
      expect([grant, answer.status], JSON.stringify(answer.body)).toEqual([grant, 200]);
      expect((await call(answer.body.access_token, 'GET', '/api/workspaces')).status).toBe(200);
    }
  });

  it('keeps only the workspaces the person reaches in a consent or claim decision, as for a personal access token', async () => {
    const { user, session } = await signedInUser();
    const other = await signedInUser();
    const own = (await call(session, 'POST', '/api/workspaces', { name: 'own' })).body.workspace.id as string;
    const foreign = (await call(other.session, 'POST', '/api/workspaces', { name: 'private', visibility: 'private' }))
      .body.workspace.id as string;
    const madeUp = randomUUID();

    // The rule, as personal access tokens apply it: a list that reaches nothing is refused.
    const pat = await call(session, 'POST', '/api/tokens', {
      name: 'p',
      scopes: ['workspaces:read'],
      workspaceIds: [foreign, madeUp],
    });
    expect([pat.status, pat.body.code]).toEqual([403, 'FORBIDDEN']);

    // The consent page's decision: refused alike, then the reachable one kept alone.
    const clientId = await createApp(session);
    const nothing = await consent(session, clientId, { workspaceIds: [foreign, madeUp] });
    expect([nothing.decided.status, nothing.decided.body.code], nothing.decided.text).toEqual([403, 'FORBIDDEN']);
    expect(nothing.decided.text).not.toContain('code=');
    const some = await consent(session, clientId, { workspaceIds: [own, foreign, madeUp] });
    expect(some.decided.status, some.decided.text).toBe(200);
    const appTokens = await some.exchange();
    expect(appTokens.status).toBe(200);
    expect(await workspacesOf(appTokens.body.access_token)).toEqual([own]);

    // The claim page's decision: the same; a refused decision leaves the page's code usable.
    const claim = await claimFor(user.email, session);
    const refused = await claim.decide({ workspaceIds: [foreign] });
    expect([refused.status, refused.body.code], refused.text).toEqual([403, 'FORBIDDEN']);
    expect((await claim.decide({ workspaceIds: [madeUp, own] })).status).toBe(200);
    const agentTokens = await claim.poll();
    expect(agentTokens.status, JSON.stringify(agentTokens.body)).toBe(200);
    expect(await workspacesOf(agentTokens.body.access_token)).toEqual([own]);

    const { grants } = (await call(session, 'GET', '/api/agent-grants')).body as {
      grants: Array<{ allWorkspaces: boolean; workspaceIds: string[] }>;
    };
    expect(grants.map((g) => [g.allWorkspaces, g.workspaceIds])).toEqual([
      [false, [own]],
      [false, [own]],
    ]);
  });
});
