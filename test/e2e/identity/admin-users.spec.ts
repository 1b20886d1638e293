import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminEnv,
  authHeaders,
  createToken,
  createUser,
  signIn,
  userWithToken,
  type TestAuth,
} from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

/** Platform administrators finding, disabling and re-enabling accounts. */
describe('administering accounts', () => {
  const dataDir = tempDir('kw-admin-users-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;

  beforeAll(async () => {
    // A minute of token cache: a credential refused right after a change was refused because
    // the change was broadcast, not because the cached entry timed out.
    platform = await startEmbedded(dataDir, { ...admin, AUTH_CACHE_TTL_MS: '60000' });
    base = platform.url;
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (auth: TestAuth, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...authHeaders(auth), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) as any };
  };
  const asAdmin = (method: string, path: string, body?: unknown) => call(admin.ADMIN_TOKEN, method, path, body);

  it('lists accounts newest first, by part of the email and by status, a page at a time', async () => {
    const tag = randomUUID().slice(0, 8);
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await createUser(base, admin.ADMIN_TOKEN, { email: `${tag}-${i}@example.com` }));
    const page = await asAdmin('GET', `/api/admin/users?email=${tag.toUpperCase()}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalCount: 3, limit: 2, offset: 0 });
    expect(page.body.users.map((u: { email: string }) => u.email)).toEqual([
      `${tag}-2@example.com`,
      `${tag}-1@example.com`,
    ]);
    const rest = await asAdmin('GET', `/api/admin/users?email=${tag}&limit=2&offset=2`);
    expect(rest.body.users.map((u: { email: string }) => u.email)).toEqual([`${tag}-0@example.com`]);
    expect(JSON.stringify(page.body)).not.toMatch(/password/i);

    const one = await asAdmin('GET', `/api/admin/users/${made[0]!.id}`);
    expect(one).toMatchObject({
      status: 200,
      body: { user: { id: made[0]!.id, status: 'active', platformAdmin: false } },
    });
    expect((await asAdmin('GET', `/api/admin/users/${randomUUID()}`)).status).toBe(404);
    expect((await asAdmin('GET', '/api/admin/users/not-a-uuid')).status).toBe(404);
    for (const query of ['limit=0', 'limit=201', 'offset=-1', 'status=gone'])
      expect((await asAdmin('GET', `/api/admin/users?${query}`)).body.code).toBe('VALIDATION_FAILED');
  });

  it('refuses everyone but administrators with scope admin', async () => {
    const someone = await userWithToken(base, admin.ADMIN_TOKEN);
    const narrowAdmin = await createToken(base, admin.ADMIN_TOKEN, { scopes: ['profile:read'] });
    for (const auth of [someone.token, narrowAdmin.token]) {
      expect((await call(auth, 'GET', '/api/admin/users')).status).toBe(403);
      expect((await call(auth, 'GET', `/api/admin/users/${someone.user.id}`)).status).toBe(403);
      expect((await call(auth, 'PATCH', `/api/admin/users/${someone.user.id}`, { status: 'disabled' })).status).toBe(
        403,
      );
    }
    expect((await call(someone.token, 'GET', '/api/profile')).status).toBe(200);
  });

  it('disables an account at once and ends its sessions; re-enabling brings its tokens back', async () => {
    const someone = await userWithToken(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, someone.user.email, someone.user.password);
    // Both credentials authenticated (and the token cached) before the change.
    expect((await call(someone.token, 'GET', '/api/profile')).status).toBe(200);
    expect((await call(session, 'GET', '/api/profile')).status).toBe(200);

    const disabled = await asAdmin('PATCH', `/api/admin/users/${someone.user.id}`, { status: 'disabled' });
    expect(disabled).toMatchObject({ status: 200, body: { user: { id: someone.user.id, status: 'disabled' } } });
    expect((await call(someone.token, 'GET', '/api/profile')).status).toBe(401);
    expect((await call(session, 'GET', '/api/profile')).status).toBe(401);
    const signInRefused = await fetch(`${base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: someone.user.email, password: someone.user.password }),
    });
    expect(signInRefused.status).toBe(401);
    expect((await asAdmin('GET', `/api/admin/users?status=disabled&email=${someone.user.email}`)).body.totalCount).toBe(
      1,
    );

    const enabled = await asAdmin('PATCH', `/api/admin/users/${someone.user.id}`, { status: 'active' });
    expect(enabled.body.user.status).toBe('active');
    expect((await call(someone.token, 'GET', '/api/profile')).status).toBe(200);
    expect((await call(session, 'GET', '/api/profile')).status).toBe(401);
    const again = await signIn(base, someone.user.email, someone.user.password);
    expect((await call(again, 'GET', '/api/profile')).status).toBe(200);
  });

  it('refuses to disable your own account or the last active administrator, and bad input', async () => {
    const self = (await call(admin.ADMIN_TOKEN, 'GET', '/api/auth/validate-token')).body.user.id as string;
    const own = await asAdmin('PATCH', `/api/admin/users/${self}`, { status: 'disabled' });
    expect(own).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((await asAdmin('GET', `/api/admin/users/${self}`)).body.user.status).toBe('active');

    expect((await asAdmin('PATCH', `/api/admin/users/${randomUUID()}`, { status: 'disabled' })).status).toBe(404);
    const bad = await asAdmin('PATCH', `/api/admin/users/${self}`, { status: 'deleted' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });
});
