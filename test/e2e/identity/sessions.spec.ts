import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, createUser, signIn, userWithToken } from '../../support/accounts.js';
import { readJson } from '../../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

/** Browser sessions: sign-in, cookies, CSRF, session-only routes, profile and beta features. */
describe('sessions, profile and beta features', () => {
  const dataDir = tempDir('kw-sessions-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, admin);
    base = platform.url;
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const json = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('signs in with cookies: kw_session HttpOnly, kw_csrf readable, SameSite=Lax, not Secure on localhost', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const res = await json(
      'POST',
      '/api/auth/sign-in',
      {},
      { email: user.email.toUpperCase(), password: user.password },
    );
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.user).toMatchObject({ id: user.id, email: user.email, displayName: user.displayName });
    expect(JSON.stringify(body)).not.toMatch(/password/i);
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('kw_session='))!;
    const csrf = cookies.find((c) => c.startsWith('kw_csrf='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).not.toMatch(/Secure/);
    expect(csrf).not.toMatch(/HttpOnly/);
    expect(csrf).toMatch(/; SameSite=Lax/);
  });

  it('marks the cookies Secure for any other host', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    // fetch may not set Host; node:http can.
    const cookies = await new Promise<string[]>((resolve, reject) => {
      const req = request(
        `${base}/api/auth/sign-in`,
        { method: 'POST', headers: { host: 'kw.example.com', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          if (res.statusCode !== 200) reject(new Error(`sign-in: ${res.statusCode}`));
          else resolve(res.headers['set-cookie'] ?? []);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ email: user.email, password: user.password }));
    });
    expect(cookies).toHaveLength(2);
    for (const cookie of cookies) expect(cookie).toMatch(/; Secure/);
  });

  it('answers wrong email and wrong password with the same generic 401', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const wrongPassword = await json(
      'POST',
      '/api/auth/sign-in',
      {},
      { email: user.email, password: 'not-the-password' },
    );
    const unknownEmail = await json(
      'POST',
      '/api/auth/sign-in',
      {},
      { email: 'nobody@example.test', password: user.password },
    );
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(await readJson(wrongPassword)).toEqual(await readJson(unknownEmail));
    expect(wrongPassword.headers.getSetCookie()).toEqual([]);
  });

  it('requires x-csrf-token equal to kw_csrf on state-changing session requests; GET and bearer need none', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);

    expect((await json('GET', '/api/profile', { cookie: session.cookie })).status).toBe(200);

    const missing = await json('PATCH', '/api/profile', { cookie: session.cookie }, { displayName: 'No CSRF' });
    expect(missing.status).toBe(403);
    expect(await readJson(missing)).toMatchObject({ code: 'CSRF_FAILED' });
    const wrong = await json(
      'PATCH',
      '/api/profile',
      { cookie: session.cookie, 'x-csrf-token': `${session.csrf}x` },
      { displayName: 'Wrong CSRF' },
    );
    expect(wrong.status).toBe(403);
    // The header alone is not enough: it must match the cookie issued with this session.
    const other = await signIn(base, user.email, user.password);
    const mixed = await json(
      'PATCH',
      '/api/profile',
      { cookie: session.cookie.replace(/kw_csrf=[^;]+/, `kw_csrf=${other.csrf}`), 'x-csrf-token': other.csrf },
      { displayName: 'Mixed' },
    );
    expect(mixed.status).toBe(403);
    expect((await readJson(await json('GET', '/api/profile', { cookie: session.cookie }))).user.displayName).toBe(
      user.displayName,
    );

    const ok = await json(
      'PATCH',
      '/api/profile',
      { cookie: session.cookie, 'x-csrf-token': session.csrf },
      { displayName: 'With CSRF' },
    );
    expect(ok.status).toBe(200);
    expect((await readJson(ok)).user.displayName).toBe('With CSRF');

    const { token } = await createToken(base, session, { name: 'bearer', scopes: ['profile:write', 'profile:read'] });
    const bearer = await json(
      'PATCH',
      '/api/profile',
      { authorization: `Bearer ${token}` },
      { displayName: 'By token' },
    );
    expect(bearer.status).toBe(200);
  });

  it('a bearer header wins over a session cookie', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    const res = await json('GET', '/api/profile', { cookie: session.cookie, authorization: 'Bearer kwp_broken' });
    expect(res.status).toBe(401);
  });

  it('session-only routes refuse personal access tokens', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN, { scopes: ['*'] });
    const res = await json('POST', '/api/auth/sign-out', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual({
      error: 'This route accepts only a signed-in browser session, not an access token',
      code: 'FORBIDDEN',
    });
  });

  it('bearer-token surfaces (/api/v1 models, chat, images, web search; the workspace file byte proxy) ignore a session cookie; the vault takes it', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    const withSession = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    for (const [method, path, body] of [
      ['GET', '/api/v1/models'],
      ['POST', '/api/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }],
      ['POST', '/api/v1/images/generations', { prompt: 'a cat' }],
      ['POST', '/api/v1/web/search', { query: 'cats' }],
      ['GET', `/api/workspace-files/${randomUUID()}/bytes`],
      ['POST', '/api/workspace-files/bytes', { workspaceId: randomUUID(), fileName: 'a.txt', base64: 'aGk=' }],
    ] as const) {
      const res = await json(method, path, withSession, body);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toMatch(/^Bearer/);
    }
    // Vault management is an ordinary signed-in user's route (spec: session or PAT).
    expect((await json('GET', '/api/v1/vault/secrets', withSession)).status).toBe(200);
  });

  it('signs out: 204, cookies cleared, the session stops working', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    expect((await json('POST', '/api/auth/sign-out', { cookie: session.cookie })).status).toBe(403);
    const res = await json('POST', '/api/auth/sign-out', { cookie: session.cookie, 'x-csrf-token': session.csrf });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().every((c) => /Max-Age=0/.test(c))).toBe(true);
    const after = await json('GET', '/api/profile', { cookie: session.cookie });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer realm="kw"/);
  });

  it('validate-token describes a session too', async () => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    const body = await readJson(await json('GET', '/api/auth/validate-token', { cookie: session.cookie }));
    expect(body).toMatchObject({
      valid: true,
      credential: { kind: 'session', scopes: ['*'], workspaces: 'all' },
      user: { id: user.id },
    });
    expect(Date.parse(body.credential.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('refuses mass assignment on PATCH /api/profile: nothing changes', async () => {
    const { user, token } = await userWithToken(base, admin.ADMIN_TOKEN);
    for (const body of [
      { role: 'admin' },
      { platformAdmin: true },
      { userId: user.id },
      { id: user.id },
      { email: 'new@example.test' },
      { displayName: 'ok', status: 'active' },
    ]) {
      const res = await json('PATCH', '/api/profile', { authorization: `Bearer ${token}` }, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await readJson(res)).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    const profile = await readJson(await json('GET', '/api/profile', { authorization: `Bearer ${token}` }));
    expect(profile.user).toMatchObject({
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      platformAdmin: false,
      status: 'active',
    });
  });

  it('profile scopes apply: a token without profile:write cannot change it', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN, { scopes: ['profile:read'] });
    expect((await json('GET', '/api/profile', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(
      (await json('PATCH', '/api/profile', { authorization: `Bearer ${token}` }, { displayName: 'x' })).status,
    ).toBe(403);
  });

  it('only platform admins create accounts; duplicate emails get 409 EMAIL_TAKEN', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN, { scopes: ['*'] });
    const denied = await json(
      'POST',
      '/api/admin/users',
      { authorization: `Bearer ${token}` },
      { email: 'x@example.test', displayName: 'X', password: 'long-enough-password' },
    );
    expect(denied.status).toBe(403);
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const dup = await json(
      'POST',
      '/api/admin/users',
      { authorization: `Bearer ${admin.ADMIN_TOKEN}` },
      { email: user.email.toUpperCase(), displayName: 'Dup', password: 'long-enough-password' },
    );
    expect(dup.status).toBe(409);
    expect(await readJson(dup)).toMatchObject({ code: 'EMAIL_TAKEN' });
    const short = await json(
      'POST',
      '/api/admin/users',
      { authorization: `Bearer ${admin.ADMIN_TOKEN}` },
      { email: 'y@example.test', displayName: 'Y', password: 'short' },
    );
    expect(short.status).toBe(400);
  });

  it('lists and switches beta features; unknown keys are refused', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const auth = { authorization: `Bearer ${token}` };
    const initial = await readJson(await json('GET', '/api/user/beta-features', auth));
    expect(initial.features.map((f: { featureKey: string }) => f.featureKey)).toEqual([
      'agentic-search',
      'graph-explorer',
      'embed-host-events',
    ]);
    expect(initial.features.every((f: { enabled: boolean; description: string }) => !f.enabled && f.description)).toBe(
      true,
    );

    const on = await json('PATCH', '/api/user/beta-features', auth, { featureKey: 'graph-explorer', enabled: true });
    expect(on.status).toBe(200);
    expect((await readJson(on)).features).toContainEqual(
      expect.objectContaining({ featureKey: 'graph-explorer', enabled: true }),
    );
    const again = await readJson(await json('GET', '/api/user/beta-features', auth));
    expect(again.features.find((f: { featureKey: string }) => f.featureKey === 'graph-explorer').enabled).toBe(true);

    const unknown = await json('PATCH', '/api/user/beta-features', auth, { featureKey: 'time-travel', enabled: true });
    expect(unknown.status).toBe(400);
    expect(await readJson(unknown)).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(
      (await json('PATCH', '/api/user/beta-features', auth, { featureKey: 'graph-explorer', enabled: 'yes' })).status,
    ).toBe(400);
  });

  it('public routes need no credential; everything else does', async () => {
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect((await fetch(`${base}/api/version`)).status).toBe(200);
    expect((await fetch(`${base}/api/docs`)).status).toBe(200);
    for (const path of ['/api/profile', '/api/tokens', '/api/user/beta-features', '/api/auth/validate-token']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="kw"');
    }
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = await readJson(await fetch(`${base}/api/docs`));
    for (const path of [
      '/api/auth/sign-in',
      '/api/auth/sign-out',
      '/api/auth/validate-token',
      '/api/admin/users',
      '/api/tokens',
      '/api/tokens/{id}',
      '/api/tokens/{id}/analytics',
      '/api/profile',
      '/api/user/beta-features',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/api/tokens'].post.requestBody).toBeDefined();
  });
});
