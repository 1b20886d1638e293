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
import { readJson } from '../../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';

/** Personal access tokens over real HTTP against the embedded platform. */
describe('personal access tokens', () => {
  const dataDir = tempDir('kw-tokens-');
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

  const call = (method: string, path: string, auth?: TestAuth, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...(auth ? authHeaders(auth) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A fresh account, signed in, with workspaces of its own (a token's list must name workspaces it reaches). */
  const personWithWorkspaces = async (count: number, visibility = 'private') => {
    const user = await createUser(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await call('POST', '/api/workspaces', session, { name: `Workspace ${i}`, visibility });
      expect(res.status).toBe(201);
      ids.push((await readJson(res)).workspace.id);
    }
    return { user, session, ids };
  };
  /** A token of a fresh account restricted to `reach` of its `count` workspaces. */
  const restrictedToken = async (scopes: string[], count: number, reach: (ids: string[]) => string[]) => {
    const person = await personWithWorkspaces(count);
    const { token } = await createToken(base, person.session, { scopes, workspaceIds: reach(person.ids) });
    return { ...person, token };
  };

  it('shows the secret once: create returns it, list and inspect never do', async () => {
    const { user, token } = await userWithToken(base, admin.ADMIN_TOKEN, {
      scopes: ['tokens:manage', 'fragments:read'],
    });
    const created = await createToken(base, token, { name: 'ci', scopes: ['fragments:read'] });
    expect(created.token).toMatch(/^kwp_[0-9A-Za-z]{36}$/);
    expect(created.body).toMatchObject({
      name: 'ci',
      scopes: ['fragments:read'],
      allWorkspaces: true,
      displayPrefix: created.token.slice(0, 12),
    });

    const list = await readJson(await call('GET', '/api/tokens', token));
    expect(list.tokens.map((t: { id: string }) => t.id)).toContain(created.id);
    const inspected = await readJson(await call('GET', `/api/tokens/${created.id}`, token));
    expect(inspected).toMatchObject({ id: created.id, name: 'ci', displayPrefix: created.token.slice(0, 12) });
    const everything = JSON.stringify([list, inspected]);
    expect(everything).not.toContain(created.token);
    expect(everything).not.toContain(token);
    expect(everything).not.toMatch(/tokenHash|token_hash/);

    const validated = await readJson(await call('GET', '/api/auth/validate-token', created.token));
    expect(validated).toEqual({
      valid: true,
      credential: { kind: 'pat', id: created.id, name: 'ci', scopes: ['fragments:read'], workspaces: 'all' },
      user: { id: user.id, email: user.email, displayName: user.displayName },
    });
  });

  it('rotation: create a new token, use it, revoke the old; the new keeps working, the old gets 401', async () => {
    const { token: manager } = await userWithToken(base, admin.ADMIN_TOKEN, {
      scopes: ['tokens:manage', 'profile:read'],
    });
    const old = await createToken(base, manager, { name: 'old', scopes: ['profile:read'] });
    expect((await call('GET', '/api/profile', old.token)).status).toBe(200);

    const fresh = await createToken(base, manager, { name: 'new', scopes: ['profile:read'] });
    expect((await call('GET', '/api/profile', fresh.token)).status).toBe(200);
    expect((await call('DELETE', `/api/tokens/${old.id}`, manager)).status).toBe(204);

    const refused = await call('GET', '/api/profile', old.token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="kw"/);
    expect(await readJson(refused)).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await call('GET', '/api/auth/validate-token', old.token)).status).toBe(401);
    expect((await call('GET', '/api/profile', fresh.token)).status).toBe(200);
    // Revoked tokens are gone from the list and answer 404 like anything unknown.
    const list = await readJson(await call('GET', '/api/tokens', manager));
    expect(list.tokens.map((t: { id: string }) => t.id)).not.toContain(old.id);
    expect((await call('DELETE', `/api/tokens/${old.id}`, manager)).status).toBe(404);
  });

  it('refuses a kwp_ token with a bad checksum, and credentials in the query string or body', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const broken = token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a');
    const res = await call('GET', '/api/profile', broken);
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ error: 'The bearer token is malformed', code: 'UNAUTHENTICATED' });
    expect((await call('GET', '/api/profile', 'short')).status).toBe(401);

    expect((await fetch(`${base}/api/profile?access_token=${token}`)).status).toBe(401);
    const inBody = await fetch(`${base}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: token, name: 'x', scopes: ['*'] }),
    });
    expect(inBody.status).toBe(401);
    expect(
      (
        await fetch(`${base}/api/profile`, {
          headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
        })
      ).status,
    ).toBe(401);
  });

  it('an expired token gets 401', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const expiring = await createToken(base, token, {
      name: 'short-lived',
      scopes: ['profile:read'],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await call('GET', '/api/profile', expiring.token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect((await call('GET', '/api/profile', expiring.token)).status).toBe(401);

    const past = await call('POST', '/api/tokens', token, {
      name: 'past',
      scopes: ['*'],
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(await readJson(past)).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'expiresAt' }] });
  });

  it('narrows a new token to the creating credential: a token never mints a broader one', async () => {
    const { ids: ws, token: narrow } = await restrictedToken(['tokens:manage', 'fragments:read'], 2, (ids) => [ids[0]]);

    const all = await createToken(base, narrow, { name: 'wants all', scopes: ['*'] });
    expect(all.body).toMatchObject({
      scopes: ['fragments:read', 'tokens:manage'],
      allWorkspaces: false,
      workspaceIds: [ws[0]],
    });
    expect(all.body.droppedScopes).toContain('fragments:write');

    const more = await createToken(base, narrow, {
      name: 'more',
      scopes: ['fragments:read', 'fragments:write'],
      workspaceIds: ws,
    });
    expect(more.body).toMatchObject({
      scopes: ['fragments:read'],
      workspaceIds: [ws[0]],
      droppedScopes: ['fragments:write'],
      droppedWorkspaceIds: [ws[1]],
    });

    const none = await call('POST', '/api/tokens', narrow, { name: 'none', scopes: ['admin'] });
    expect(none.status).toBe(403);
    const unknown = await call('POST', '/api/tokens', narrow, { name: 'typo', scopes: ['fragments:raed'] });
    expect(unknown.status).toBe(400);
    expect(await readJson(unknown)).toMatchObject({ code: 'VALIDATION_FAILED' });

    // A token without tokens:manage cannot manage tokens at all.
    const reader = await createToken(base, narrow, { name: 'reader', scopes: ['fragments:read'] });
    expect((await call('GET', '/api/tokens', reader.token)).status).toBe(403);
    expect((await call('POST', '/api/tokens', reader.token, { name: 'x', scopes: ['fragments:read'] })).status).toBe(
      403,
    );
  });

  it('never mints or narrows a token to no workspace at all', async () => {
    const {
      ids: ws,
      session: token,
      token: onlyFirst,
    } = await restrictedToken(['tokens:manage', 'fragments:read'], 2, (ids) => [ids[0]]);
    const before = (await readJson(await call('GET', '/api/tokens', onlyFirst))).tokens.length;
    const empty = await call('POST', '/api/tokens', token, { name: 'nowhere', scopes: ['*'], workspaceIds: [] });
    expect(empty.status).toBe(400);
    expect(await readJson(empty)).toEqual({
      error: 'workspaceIds: choose at least one workspace, or all of them',
      code: 'VALIDATION_FAILED',
      fields: [{ field: 'workspaceIds', problems: ['choose at least one workspace, or all of them'] }],
    });
    const elsewhere = await call('POST', '/api/tokens', onlyFirst, {
      name: 'elsewhere',
      scopes: ['fragments:read'],
      workspaceIds: [ws[1]],
    });
    expect(elsewhere.status).toBe(403);
    expect(await readJson(elsewhere)).toMatchObject({ code: 'FORBIDDEN' });
    expect((await readJson(await call('GET', '/api/tokens', onlyFirst))).tokens.length).toBe(before);

    const t = await createToken(base, token, { name: 'somewhere', scopes: ['profile:read'], workspaceIds: ws });
    const narrowed = await call('PATCH', `/api/tokens/${t.id}`, token, { workspaceIds: [] });
    expect(narrowed.status).toBe(400);
    expect(await readJson(narrowed)).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'workspaceIds' }] });
    expect(await readJson(await call('GET', `/api/tokens/${t.id}`, token))).toMatchObject({ workspaceIds: ws });
  });

  it('mints no token for workspaces its user does not reach', async () => {
    const mine = await personWithWorkspaces(1);
    const other = await personWithWorkspaces(1);
    const before = (await readJson(await call('GET', '/api/tokens', mine.session))).tokens.length;
    // Another account's private workspace, or an id that does not exist: the same 403, nothing minted.
    for (const workspaceId of [other.ids[0], randomUUID()]) {
      const res = await call('POST', '/api/tokens', mine.session, {
        name: 'x',
        scopes: ['*'],
        workspaceIds: [workspaceId],
      });
      expect(res.status).toBe(403);
      expect(await readJson(res)).toEqual({
        error: 'Your credential reaches none of the requested workspaces',
        code: 'FORBIDDEN',
      });
    }
    expect((await readJson(await call('GET', '/api/tokens', mine.session))).tokens.length).toBe(before);
    // What is reached is kept, the rest reported; a public workspace of another account is reached.
    const open = await personWithWorkspaces(1, 'public');
    const mixed = await createToken(base, mine.session, {
      name: 'mixed',
      scopes: ['*'],
      workspaceIds: [mine.ids[0], other.ids[0], open.ids[0]],
    });
    expect(mixed.body).toMatchObject({ workspaceIds: [mine.ids[0], open.ids[0]], droppedWorkspaceIds: [other.ids[0]] });
  });

  it('mints no admin scope for an account that is not a platform administrator', async () => {
    const mine = await personWithWorkspaces(0);
    // admin needs a platform administrator's account, whatever a session's `*` says.
    const adminOnly = await call('POST', '/api/tokens', mine.session, { name: 'a', scopes: ['admin'] });
    expect([adminOnly.status, (await readJson(adminOnly)).code]).toEqual([403, 'FORBIDDEN']);
    const withAdmin = await createToken(base, mine.session, { name: 'b', scopes: ['admin', 'profile:read'] });
    expect(withAdmin.body).toMatchObject({ scopes: ['profile:read'], droppedScopes: ['admin'] });
    const admins = await createToken(base, admin.ADMIN_TOKEN, { name: 'admin', scopes: ['admin'] });
    expect(admins.body).toMatchObject({ scopes: ['admin'], droppedScopes: [] });
  });

  it('a token restricted to a list of workspaces creates no workspace; one for all of them does', async () => {
    const person = await personWithWorkspaces(1);
    const restricted = await createToken(base, person.session, { scopes: ['*'], workspaceIds: person.ids });
    const refused = await call('POST', '/api/workspaces', restricted.token, { name: 'Outside the list' });
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toMatchObject({
      code: 'FORBIDDEN',
      error: expect.stringContaining('restricted to a list of workspaces'),
    });
    const listed = await readJson(await call('GET', '/api/workspaces', person.session));
    expect(listed.items.map((w: { id: string }) => w.id)).toEqual(person.ids);
    const everywhere = await createToken(base, person.session, { scopes: ['*'] });
    expect((await call('POST', '/api/workspaces', everywhere.token, { name: 'Second' })).status).toBe(201);
  });

  it('refuses null on PATCH: an expiry cannot be removed', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const t = await createToken(base, token, { name: 'dated', scopes: ['profile:read'], expiresAt });
    for (const field of ['expiresAt', 'name', 'scopes', 'workspaceIds']) {
      const res = await call('PATCH', `/api/tokens/${t.id}`, token, { [field]: null });
      expect(res.status, field).toBe(400);
      expect(await readJson(res)).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field }] });
    }
    expect(await readJson(await call('GET', `/api/tokens/${t.id}`, token))).toMatchObject({ name: 'dated', expiresAt });
  });

  it('updates narrow only; adding a scope or workspace is refused', async () => {
    const { ids: ws, session: token } = await personWithWorkspaces(2);
    const t = await createToken(base, token, {
      name: 'to narrow',
      scopes: ['fragments:read', 'fragments:write'],
      workspaceIds: ws,
    });

    const narrowed = await call('PATCH', `/api/tokens/${t.id}`, token, {
      name: 'renamed',
      scopes: ['fragments:read'],
      workspaceIds: [ws[1]],
    });
    expect(narrowed.status).toBe(200);
    expect(await readJson(narrowed)).toMatchObject({
      name: 'renamed',
      scopes: ['fragments:read'],
      allWorkspaces: false,
      workspaceIds: [ws[1]],
    });

    const widen = await call('PATCH', `/api/tokens/${t.id}`, token, { scopes: ['fragments:read', 'fragments:write'] });
    expect(widen.status).toBe(400);
    expect(await readJson(widen)).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'scopes' }] });
    expect((await call('PATCH', `/api/tokens/${t.id}`, token, { scopes: ['*'] })).status).toBe(400);
    expect((await call('PATCH', `/api/tokens/${t.id}`, token, { workspaceIds: ws })).status).toBe(400);
    expect(await readJson(await call('GET', `/api/tokens/${t.id}`, token))).toMatchObject({
      name: 'renamed',
      scopes: ['fragments:read'],
      workspaceIds: [ws[1]],
    });
  });

  it('refuses mass assignment on PATCH /api/tokens/{id}: nothing changes', async () => {
    const { user, token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const other = await userWithToken(base, admin.ADMIN_TOKEN);
    const t = await createToken(base, token, { name: 'mine', scopes: ['profile:read'] });
    const before = await readJson(await call('GET', `/api/tokens/${t.id}`, token));
    for (const body of [
      { userId: other.user.id },
      { id: '00000000-0000-4000-8000-000000000000' },
      { role: 'owner' },
      { tokenHash: 'x' },
      { name: 'ok', revokedAt: null },
      { allWorkspaces: true },
    ]) {
      const res = await call('PATCH', `/api/tokens/${t.id}`, token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await readJson(res)).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect(await readJson(await call('GET', `/api/tokens/${t.id}`, token))).toEqual(before);
    expect(user.id).not.toBe(other.user.id);
  });

  it("answers 404 for another user's token, whatever the operation", async () => {
    const owner = await userWithToken(base, admin.ADMIN_TOKEN);
    const stranger = await userWithToken(base, admin.ADMIN_TOKEN);
    const t = await createToken(base, owner.token, { name: 'private', scopes: ['profile:read'] });
    for (const [method, path, body] of [
      ['GET', `/api/tokens/${t.id}`],
      ['PATCH', `/api/tokens/${t.id}`, { name: 'stolen' }],
      ['DELETE', `/api/tokens/${t.id}`],
      ['GET', `/api/tokens/${t.id}/analytics`],
      ['GET', '/api/tokens/not-a-uuid'],
    ] as [string, string, unknown?][]) {
      const res = await call(method, path, stranger.token, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await readJson(res)).toEqual({ error: 'Token not found', code: 'NOT_FOUND' });
    }
    expect((await call('GET', '/api/profile', t.token)).status).toBe(200);
  });

  it('counts requests per UTC day and records the last use', async () => {
    const { token } = await userWithToken(base, admin.ADMIN_TOKEN);
    const t = await createToken(base, token, { name: 'counted', scopes: ['profile:read'] });
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/profile', t.token)).status).toBe(200);
    const analytics = await readJson(await call('GET', `/api/tokens/${t.id}/analytics`, token));
    expect(analytics.requestsPerDay).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(analytics.requestsPerDay.at(-1)).toEqual({ day: today, requests: 3 });
    expect(analytics.totalRequests).toBe(3);
    expect(analytics.lastUsedIp).toMatch(/127\.0\.0\.1/);
    expect(Date.parse(analytics.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a session creates tokens too, and sessions get every scope', async () => {
    const { user } = await userWithToken(base, admin.ADMIN_TOKEN);
    const session = await signIn(base, user.email, user.password);
    const t = await createToken(base, session, { name: 'from dashboard', scopes: ['*'] });
    expect(t.body).toMatchObject({ scopes: ['*'], allWorkspaces: true, droppedScopes: [] });
  });
});
