import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, type SessionAuth, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

const REDIRECT = 'https://app.example.test/callback';

/**
 * The bodies and headers of agent-auth's answers over real HTTP against the embedded platform:
 * the consent and claim decisions answer their documented DTO and nothing of the contract
 * message; every answer that carries a secret (a token, a client secret, a claim token, a
 * session) says `Cache-Control: no-store`.
 */
describe('identity answers', () => {
  const dataDir = tempDir('kw-identity-answers-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let person: TestUser;
  let session: SessionAuth;

  const post = (path: string, body: unknown, auth?: SessionAuth) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth ? { cookie: auth.cookie, 'x-csrf-token': auth.csrf } : {}),
      },
      body: JSON.stringify(body),
    });
  const startClaim = async () => {
    const res = await post('/agent/identity', {
      type: 'service_auth',
      login_hint: person.email,
      client_name: 'Research assistant',
      scope: 'workspaces:read fragments:read',
    });
    expect(res.status).toBe(200);
    return { res, body: (await res.json()) as { claim: { verification_uri: string }; claim_token: string } };
  };

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      AUTH_FAILURES_PER_ADDRESS: '100000',
      AUTH_FAILURES_PER_CREDENTIAL: '100000',
      RATE_LIMIT_PER_ADDRESS: '100000',
    });
    base = platform.url;
    person = await createUser(base, admin.ADMIN_TOKEN);
    session = await signIn(base, person.email, person.password);
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the consent and claim decisions as documented, without protobuf fields', async () => {
    const app = await post(
      '/api/applications',
      { name: 'Notes sync', redirectUris: [REDIRECT], clientType: 'public', scopes: ['workspaces:read'] },
      session,
    );
    const clientId = ((await app.json()) as any).application.id as string;
    const authorize = new URL(`${base}/oauth2/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'workspaces:read',
    }))
      authorize.searchParams.set(k, v);
    const consentPage = await (await fetch(authorize, { headers: { cookie: session.cookie } })).text();
    const consentUrl = /"decisionUrl":"([^"]+)"/.exec(consentPage)![1];
    const consent = await post(consentUrl, { decision: 'approve', scopes: ['workspaces:read'] }, session);
    expect(consent.status).toBe(200);
    const consented = (await consent.json()) as Record<string, unknown>;
    expect(Object.keys(consented)).toEqual(['redirectTo']);
    expect(new URL(consented.redirectTo as string).searchParams.get('code')).toMatch(/.+/);

    const { body: claim } = await startClaim();
    const claimPage = await (await fetch(claim.claim.verification_uri, { headers: { cookie: session.cookie } })).text();
    const userCode = /id="user-code">([A-Z]{8})</.exec(claimPage)![1];
    const claimUrl = /"decisionUrl":"([^"]+)"/.exec(claimPage)![1];
    const decided = await post(
      claimUrl,
      { decision: 'approve', userCode, acceptTerms: true, scopes: ['workspaces:read'] },
      session,
    );
    expect(decided.status).toBe(200);
    expect(await decided.json()).toEqual({ status: 'approved' });
  });

  it('answers every secret with Cache-Control: no-store', async () => {
    const noStore = (res: Response, route: string) =>
      expect([route, res.status, res.headers.get('cache-control'), res.headers.get('pragma')]).toEqual([
        route,
        expect.any(Number),
        'no-store',
        'no-cache',
      ]);
    const signedIn = await post('/api/auth/sign-in', { email: person.email, password: person.password });
    expect(signedIn.status).toBe(200);
    noStore(signedIn, 'POST /api/auth/sign-in');

    const token = await post('/api/tokens', { name: 'ci', scopes: ['profile:read'] }, session);
    expect(token.status).toBe(201);
    noStore(token, 'POST /api/tokens');

    const app = await post('/api/applications', { name: 'Confidential', redirectUris: [REDIRECT] }, session);
    expect(app.status).toBe(201);
    noStore(app, 'POST /api/applications');
    const appId = ((await app.json()) as any).application.id as string;
    const rotated = await post(`/api/applications/${appId}/secret`, {}, session);
    expect(rotated.status).toBe(201);
    noStore(rotated, 'POST /api/applications/{id}/secret');

    const registered = await post('/oauth2/register', { redirect_uris: [REDIRECT] });
    expect(registered.status).toBe(201);
    noStore(registered, 'POST /oauth2/register');

    const { res: started, body: claim } = await startClaim();
    noStore(started, 'POST /agent/identity');
    const renewed = await post('/agent/identity/claim', { claim_token: claim.claim_token, email: person.email });
    expect(renewed.status).toBe(200);
    noStore(renewed, 'POST /agent/identity/claim');

    // Other components' secrets: an embed key's token and a webhook's signing secret.
    const workspace = await post('/api/workspaces', { name: 'Secrets' }, session);
    expect(workspace.status).toBe(201);
    const workspaceId = ((await workspace.json()) as any).workspace.id as string;
    const config = await post('/api/v2/configs', { workspaceId, name: 'Site' }, session);
    expect(config.status).toBe(201);
    const configId = ((await config.json()) as any).config.id as string;
    const key = await post(`/api/v2/configs/${configId}/keys`, { label: 'site', public: true }, session);
    expect(key.status).toBe(201);
    noStore(key, 'POST /api/v2/configs/{id}/keys');
    // A public address, disabled: nothing is ever sent to it.
    const hook = { name: 'h', url: 'https://8.8.8.8/hook', events: ['fragment.created'], enabled: false };
    const webhook = await post(`/api/workspaces/${workspaceId}/webhooks`, hook, session);
    expect(webhook.status).toBe(201);
    noStore(webhook, 'POST /api/workspaces/{id}/webhooks');
    const webhookId = ((await webhook.json()) as any).webhook.id as string;
    const rotatedHook = await post(`/api/workspaces/${workspaceId}/webhooks/${webhookId}/rotate-secret`, {}, session);
    expect(rotatedHook.status).toBe(200);
    noStore(rotatedHook, 'POST /api/workspaces/{id}/webhooks/{id}/rotate-secret');
  });
});
