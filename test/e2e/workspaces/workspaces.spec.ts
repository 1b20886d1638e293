import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, signIn, userWithToken, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND, workspacesApi } from './workspaces-api.js';

/** Workspaces over real HTTP: lifecycle, validation, settings, discovery, subscriptions, scopes. */
describe('workspaces', () => {
  const dataDir = tempDir('kw-workspaces-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let api: ReturnType<typeof workspacesApi>;
  let owner: { user: TestUser; token: string };
  let stranger: { user: TestUser; token: string };

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, admin);
    api = workspacesApi(platform.url);
    [owner, stranger] = await Promise.all([
      userWithToken(platform.url, admin.ADMIN_TOKEN),
      userWithToken(platform.url, admin.ADMIN_TOKEN),
    ]);
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('create', () => {
    it('creates a private workspace owned by the caller', async () => {
      const res = await api.call(owner.token, 'POST', '/api/workspaces', { name: 'Research', description: 'Notes' });
      expect(res.status).toBe(201);
      expect(res.body.workspace).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Research',
        description: 'Notes',
        visibility: 'private',
        status: 'active',
        hostedZoneId: null,
        endpointUrl: null,
        createdBy: owner.user.id,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        archivedAt: null,
        relation: 'owner',
        role: 'owner',
      });
      const mine = await api.ok(owner.token, 'GET', '/api/workspaces', undefined, 200);
      expect(mine.items.map((w: any) => [w.id, w.role])).toContainEqual([res.body.workspace.id, 'owner']);
      expect(mine.count).toBe(mine.items.length);
      const theirs = await api.ok(stranger.token, 'GET', '/api/workspaces', undefined, 200);
      expect(theirs.items.map((w: any) => w.id)).not.toContain(res.body.workspace.id);
    });

    it.each([
      ['no name', {}],
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
      ['a name of 201 characters', { name: 'x'.repeat(201) }],
      ['an unknown visibility', { name: 'a', visibility: 'secret' }],
      ['a hostedZoneId that is not a UUID', { name: 'a', hostedZoneId: 'zone-1' }],
      ['an unknown field', { name: 'a', ownerId: UNKNOWN_ID }],
      ['a status', { name: 'a', status: 'active' }],
    ])('refuses %s with 400 VALIDATION_FAILED', async (_what, body) => {
      const res = await api.call(owner.token, 'POST', '/api/workspaces', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('accepts a 200-character name and a public visibility', async () => {
      const workspace = await api.createWorkspace(owner.token, { name: 'y'.repeat(200), visibility: 'public' });
      expect(workspace.name).toHaveLength(200);
      expect(workspace.visibility).toBe('public');
    });

    it('counts name and description in characters: astral characters are one each', async () => {
      const emoji = '\u{1F600}';
      const created = await api.createWorkspace(owner.token, {
        name: emoji.repeat(200),
        description: emoji.repeat(2000),
      });
      expect([created.name, created.description]).toEqual([emoji.repeat(200), emoji.repeat(2000)]);
      const renamed = await api.call(owner.token, 'PATCH', `/api/workspaces/${created.id}`, {
        name: emoji.repeat(101),
      });
      expect([renamed.status, renamed.body.workspace?.name]).toEqual([200, emoji.repeat(101)]);
      for (const [field, body] of [
        ['name', { name: emoji.repeat(201) }],
        ['description', { name: 'a', description: emoji.repeat(2001) }],
      ] as const) {
        const res = await api.call(owner.token, 'POST', '/api/workspaces', body);
        expect([res.status, res.body.code, res.body.fields?.map((f: any) => f.field)]).toEqual([
          400,
          'VALIDATION_FAILED',
          [field],
        ]);
      }
    });

    it('answers an unknown hosted zone with 404 HOSTED_ZONE_NOT_FOUND and creates nothing', async () => {
      const res = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'zoned-unique-name',
        hostedZoneId: UNKNOWN_ID,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Hosted zone not found', code: 'HOSTED_ZONE_NOT_FOUND' });
      const mine = await api.ok(owner.token, 'GET', '/api/workspaces', undefined, 200);
      expect(mine.items.map((w: any) => w.name)).not.toContain('zoned-unique-name');
    });

    it('needs a credential: 401', async () => {
      const res = await api.call(undefined, 'POST', '/api/workspaces', { name: 'a' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('access boundary', () => {
    it("answers another tenant's private workspace exactly like an unknown or malformed id", async () => {
      const ws = await api.createWorkspace(owner.token);
      const paths = (id: string) =>
        [
          ['GET', `/api/workspaces/${id}`],
          ['PATCH', `/api/workspaces/${id}`, { name: 'stolen' }],
          ['DELETE', `/api/workspaces/${id}`],
          ['POST', `/api/workspaces/${id}/restore`],
          ['GET', `/api/workspaces/${id}/settings`],
          ['PATCH', `/api/workspaces/${id}/settings`, { allowPublicSubscriptions: false }],
          ['POST', `/api/workspaces/${id}/subscribe`],
          ['POST', `/api/workspaces/${id}/unsubscribe`],
          ['GET', `/api/workspaces/${id}/members`],
          ['POST', `/api/workspaces/${id}/members`, { email: 'x@example.test', role: 'viewer' }],
          ['PATCH', `/api/workspaces/${id}/members/${stranger.user.id}`, { role: 'viewer' }],
          ['DELETE', `/api/workspaces/${id}/members/${owner.user.id}`],
          ['GET', `/api/workspaces/${id}/invitations`],
          ['DELETE', `/api/workspaces/${id}/invitations/${UNKNOWN_ID}`],
        ] as const;
      for (const id of [ws.id, UNKNOWN_ID, 'not-a-uuid']) {
        for (const [method, path, body] of paths(id)) {
          const res = await api.call(stranger.token, method, path, body);
          expect({ method, path, status: res.status, text: res.text }).toEqual({
            method,
            path,
            status: 404,
            text: WORKSPACE_NOT_FOUND,
          });
        }
      }
      const still = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}`, undefined, 200);
      expect(still.workspace.name).toBe(ws.name);
    });

    it('a token restricted to other workspaces sees 404 and lists only its workspaces', async () => {
      const a = await api.createWorkspace(owner.token);
      const b = await api.createWorkspace(owner.token);
      const session = await signIn(platform.url, owner.user.email, owner.user.password);
      const { token } = await createToken(platform.url, session, { scopes: ['*'], workspaceIds: [a.id] });
      expect((await api.call(token, 'GET', `/api/workspaces/${a.id}`)).status).toBe(200);
      const hidden = await api.call(token, 'GET', `/api/workspaces/${b.id}`);
      expect([hidden.status, hidden.text]).toEqual([404, WORKSPACE_NOT_FOUND]);
      const mine = await api.ok(token, 'GET', '/api/workspaces', undefined, 200);
      expect(mine.items.map((w: any) => w.id)).toEqual([a.id]);
    });

    it('a token lacking the scope gets 403 on a workspace it can see', async () => {
      const ws = await api.createWorkspace(owner.token);
      const session = await signIn(platform.url, owner.user.email, owner.user.password);
      const { token } = await createToken(platform.url, session, { scopes: ['workspaces:read'] });
      expect((await api.call(token, 'GET', `/api/workspaces/${ws.id}`)).status).toBe(200);
      for (const [method, path, body] of [
        ['PATCH', `/api/workspaces/${ws.id}`, { name: 'x' }],
        ['PATCH', `/api/workspaces/${ws.id}/settings`, { allowPublicSubscriptions: false }],
        ['DELETE', `/api/workspaces/${ws.id}`],
        ['GET', `/api/workspaces/${ws.id}/members`],
        ['POST', `/api/workspaces/${ws.id}/members`, { email: 'x@example.test', role: 'viewer' }],
        ['POST', '/api/workspaces', { name: 'x' }],
      ] as const) {
        const res = await api.call(token, method, path, body);
        expect({ path, method, status: res.status, code: res.body.code }).toEqual({
          path,
          method,
          status: 403,
          code: 'FORBIDDEN',
        });
      }
    });
  });

  describe('update', () => {
    it('lets the owner change name, description and visibility', async () => {
      const ws = await api.createWorkspace(owner.token);
      const res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}`, {
        name: 'Renamed',
        description: 'New',
        visibility: 'public',
      });
      expect(res.status).toBe(200);
      expect(res.body.workspace).toMatchObject({
        id: ws.id,
        name: 'Renamed',
        description: 'New',
        visibility: 'public',
        role: 'owner',
      });
      const again = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}`, undefined, 200);
      expect(again.workspace).toMatchObject({ name: 'Renamed', description: 'New', visibility: 'public' });
    });

    it.each([
      ['role', { role: 'viewer' }],
      ['ownerId', { ownerId: UNKNOWN_ID }],
      ['workspaceId', { workspaceId: UNKNOWN_ID }],
      ['id', { id: UNKNOWN_ID }],
      ['createdBy', { createdBy: UNKNOWN_ID }],
      ['status', { status: 'processing' }],
      ['hostedZoneId', { hostedZoneId: UNKNOWN_ID }],
      ['archivedAt', { archivedAt: null }],
      ['settings', { settings: {} }],
    ])('refuses mass assignment of %s with 400 and changes nothing', async (_field, extra) => {
      const ws = await api.createWorkspace(owner.token, { name: 'Before' });
      const res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}`, { name: 'After', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      const again = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}`, undefined, 200);
      expect(again.workspace).toEqual(ws);
    });

    it('refuses invalid values', async () => {
      const ws = await api.createWorkspace(owner.token);
      for (const body of [{ name: '' }, { name: 'x'.repeat(201) }, { visibility: 'hidden' }, { description: 5 }]) {
        const res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}`, body);
        expect(res.status).toBe(400);
      }
    });

    it('a non-member of a public workspace can read it but not change it (403)', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public' });
      const read = await api.call(stranger.token, 'GET', `/api/workspaces/${ws.id}`);
      expect(read.status).toBe(200);
      expect(read.body.workspace).toMatchObject({ id: ws.id, relation: 'none', role: null });
      for (const [method, path, body] of [
        ['PATCH', `/api/workspaces/${ws.id}`, { name: 'x' }],
        ['PATCH', `/api/workspaces/${ws.id}/settings`, { allowPublicSubscriptions: false }],
        ['DELETE', `/api/workspaces/${ws.id}`],
        ['POST', `/api/workspaces/${ws.id}/restore`],
      ] as const) {
        const res = await api.call(stranger.token, method, path, body);
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'FORBIDDEN' });
      }
    });
  });

  describe('settings', () => {
    it('starts from the documented defaults', async () => {
      const ws = await api.createWorkspace(owner.token);
      const res = await api.call(owner.token, 'GET', `/api/workspaces/${ws.id}/settings`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        settings: {
          defaultFragmentTypeId: null,
          enrichment: { summaries: true, tags: true },
          allowPublicSubscriptions: true,
        },
      });
    });

    it('applies partial updates and clears with null', async () => {
      const ws = await api.createWorkspace(owner.token);
      // The default type must be one of the workspace's own (another's is refused: test/e2e/hostile-input.spec.ts).
      const types = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
      const typeId: string = types.items.find((t: { key: string }) => t.key === 'note').id;
      let res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}/settings`, {
        defaultFragmentTypeId: typeId,
        enrichment: { tags: false },
      });
      expect(res.status).toBe(200);
      expect(res.body.settings).toEqual({
        defaultFragmentTypeId: typeId,
        enrichment: { summaries: true, tags: false },
        allowPublicSubscriptions: true,
      });
      res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}/settings`, {
        defaultFragmentTypeId: null,
        allowPublicSubscriptions: false,
      });
      expect(res.body.settings).toEqual({
        defaultFragmentTypeId: null,
        enrichment: { summaries: true, tags: false },
        allowPublicSubscriptions: false,
      });
      const read = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/settings`, undefined, 200);
      expect(read.settings).toEqual(res.body.settings);
    });

    it.each([
      ['an unknown key', { theme: 'dark' }],
      ['an unknown nested key', { enrichment: { images: true } }],
      ['a non-UUID fragment type', { defaultFragmentTypeId: 'abc' }],
      ['a non-boolean', { allowPublicSubscriptions: 'yes' }],
      ['a non-object enrichment', { enrichment: true }],
    ])('refuses %s with 400 and changes nothing', async (_what, body) => {
      const ws = await api.createWorkspace(owner.token);
      const res = await api.call(owner.token, 'PATCH', `/api/workspaces/${ws.id}/settings`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      const read = await api.ok(owner.token, 'GET', `/api/workspaces/${ws.id}/settings`, undefined, 200);
      expect(read.settings).toEqual({
        defaultFragmentTypeId: null,
        enrichment: { summaries: true, tags: true },
        allowPublicSubscriptions: true,
      });
    });
  });

  describe('archive and restore', () => {
    it('archives: 404 everywhere, out of listings, listed as archived for the owner, restorable', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public', name: `archivable-${Date.now()}` });
      const archived = await api.call(owner.token, 'DELETE', `/api/workspaces/${ws.id}`);
      expect(archived.status).toBe(200);
      expect(archived.body.workspace.archivedAt).toEqual(expect.any(String));

      for (const [method, path] of [
        ['GET', `/api/workspaces/${ws.id}`],
        ['PATCH', `/api/workspaces/${ws.id}`],
        ['DELETE', `/api/workspaces/${ws.id}`],
        ['GET', `/api/workspaces/${ws.id}/settings`],
        ['GET', `/api/workspaces/${ws.id}/members`],
        ['POST', `/api/workspaces/${ws.id}/subscribe`],
      ] as const) {
        const res = await api.call(owner.token, method, path, method === 'PATCH' ? { name: 'x' } : undefined);
        expect({ path, method, status: res.status, text: res.text }).toEqual({
          path,
          method,
          status: 404,
          text: WORKSPACE_NOT_FOUND,
        });
      }
      const mine = await api.ok(owner.token, 'GET', '/api/workspaces', undefined, 200);
      expect(mine.items.map((w: any) => w.id)).not.toContain(ws.id);
      const discover = await api.ok(
        owner.token,
        'GET',
        `/api/workspaces/discover?q=${encodeURIComponent(ws.name)}`,
        undefined,
        200,
      );
      expect(discover.totalCount).toBe(0);

      const list = await api.ok(owner.token, 'GET', '/api/workspaces/archived', undefined, 200);
      expect(list.items.map((w: any) => w.id)).toContain(ws.id);
      const theirs = await api.ok(stranger.token, 'GET', '/api/workspaces/archived', undefined, 200);
      expect(theirs.items.map((w: any) => w.id)).not.toContain(ws.id);

      const strangerRestore = await api.call(stranger.token, 'POST', `/api/workspaces/${ws.id}/restore`);
      expect([strangerRestore.status, strangerRestore.text]).toEqual([404, WORKSPACE_NOT_FOUND]);

      const restored = await api.call(owner.token, 'POST', `/api/workspaces/${ws.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.workspace).toMatchObject({ id: ws.id, archivedAt: null });
      expect((await api.call(owner.token, 'GET', `/api/workspaces/${ws.id}`)).status).toBe(200);
      const after = await api.ok(owner.token, 'GET', '/api/workspaces/archived', undefined, 200);
      expect(after.items.map((w: any) => w.id)).not.toContain(ws.id);
    });

    it('archive and restore need workspaces:delete', async () => {
      const ws = await api.createWorkspace(owner.token);
      const session = await signIn(platform.url, owner.user.email, owner.user.password);
      const { token } = await createToken(platform.url, session, { scopes: ['workspaces:read', 'workspaces:write'] });
      const res = await api.call(token, 'DELETE', `/api/workspaces/${ws.id}`);
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('discover', () => {
    const tag = `disc${Date.now().toString(36)}`;
    beforeAll(async () => {
      for (let i = 0; i < 5; i++)
        await api.createWorkspace(owner.token, { name: `${tag} public ${i}`, visibility: 'public' });
      await api.createWorkspace(owner.token, { name: `${tag} private`, visibility: 'private' });
      await api.createWorkspace(owner.token, {
        name: `other 100% done`,
        description: `${tag} in the description`,
        visibility: 'public',
      });
    });

    it('finds public workspaces by name or description, case-insensitively, never private ones', async () => {
      const res = await api.call(stranger.token, 'GET', `/api/workspaces/discover?q=${tag.toUpperCase()}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 6, totalCount: 6, limit: 20, offset: 0 });
      expect(res.body.items.map((w: any) => w.name)).not.toContain(`${tag} private`);
      expect(res.body.items.every((w: any) => w.visibility === 'public' && w.relation === 'none')).toBe(true);
    });

    it('paginates with limit and offset', async () => {
      const first = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${tag}%20public&limit=2`,
        undefined,
        200,
      );
      const second = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${tag}%20public&limit=2&offset=2`,
        undefined,
        200,
      );
      const last = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${tag}%20public&limit=2&offset=4`,
        undefined,
        200,
      );
      const past = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${tag}%20public&limit=2&offset=10`,
        undefined,
        200,
      );
      expect([first.count, second.count, last.count, past.count]).toEqual([2, 2, 1, 0]);
      expect([first.totalCount, past.totalCount]).toEqual([5, 5]);
      const names = [...first.items, ...second.items, ...last.items].map((w: any) => w.name);
      expect(names).toEqual([0, 1, 2, 3, 4].map((i) => `${tag} public ${i}`));
    });

    it('treats % and _ as literal characters', async () => {
      const percent = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${encodeURIComponent('100%')}`,
        undefined,
        200,
      );
      expect(percent.items.map((w: any) => w.name)).toEqual(['other 100% done']);
      const underscore = await api.ok(
        stranger.token,
        'GET',
        `/api/workspaces/discover?q=${encodeURIComponent(`${tag}_public`)}`,
        undefined,
        200,
      );
      expect(underscore.totalCount).toBe(0);
    });

    it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=0x10', 'offset=+1', 'offset=-1', 'sort=name'])(
      'refuses %s with 400',
      async (query) => {
        const res = await api.call(stranger.token, 'GET', `/api/workspaces/discover?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      },
    );
  });

  describe('subscriptions', () => {
    it('subscribes to a public workspace, lists it as accessible, unsubscribes', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public' });
      const sub = await api.call(stranger.token, 'POST', `/api/workspaces/${ws.id}/subscribe`);
      expect(sub.status).toBe(200);
      expect(sub.body.workspace).toMatchObject({ id: ws.id, relation: 'subscriber', role: null });
      expect((await api.call(stranger.token, 'POST', `/api/workspaces/${ws.id}/subscribe`)).status).toBe(200);

      const accessible = await api.ok(stranger.token, 'GET', '/api/workspaces/accessible', undefined, 200);
      expect(accessible.items.find((w: any) => w.id === ws.id)).toMatchObject({ relation: 'subscriber' });
      const mine = await api.ok(stranger.token, 'GET', '/api/workspaces', undefined, 200);
      expect(mine.items.map((w: any) => w.id)).not.toContain(ws.id);
      const ownerAccessible = await api.ok(owner.token, 'GET', '/api/workspaces/accessible', undefined, 200);
      expect(ownerAccessible.items.find((w: any) => w.id === ws.id)).toMatchObject({
        relation: 'owner',
        role: 'owner',
      });

      const unsub = await api.call(stranger.token, 'POST', `/api/workspaces/${ws.id}/unsubscribe`);
      expect(unsub.status).toBe(200);
      expect(unsub.body.workspace.relation).toBe('none');
      const after = await api.ok(stranger.token, 'GET', '/api/workspaces/accessible', undefined, 200);
      expect(after.items.map((w: any) => w.id)).not.toContain(ws.id);
    });

    it('a subscription grants read-style access only', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public' });
      await api.ok(stranger.token, 'POST', `/api/workspaces/${ws.id}/subscribe`, undefined, 200);
      expect((await api.call(stranger.token, 'GET', `/api/workspaces/${ws.id}/settings`)).status).toBe(200);
      for (const [method, path, body] of [
        ['PATCH', `/api/workspaces/${ws.id}`, { name: 'x' }],
        ['GET', `/api/workspaces/${ws.id}/members`],
        ['GET', `/api/workspaces/${ws.id}/invitations`],
        ['POST', `/api/workspaces/${ws.id}/members`, { email: 'x@example.test', role: 'viewer' }],
      ] as const) {
        const res = await api.call(stranger.token, method, path, body);
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
      }
    });

    it('a private workspace cannot be subscribed to: 404, even for its owner', async () => {
      const ws = await api.createWorkspace(owner.token);
      for (const who of [stranger.token, owner.token]) {
        const res = await api.call(who, 'POST', `/api/workspaces/${ws.id}/subscribe`);
        expect([res.status, res.text]).toEqual([404, WORKSPACE_NOT_FOUND]);
      }
    });

    it('a subscription stops counting when the workspace turns private', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public' });
      await api.ok(stranger.token, 'POST', `/api/workspaces/${ws.id}/subscribe`, undefined, 200);
      await api.ok(owner.token, 'PATCH', `/api/workspaces/${ws.id}`, { visibility: 'private' }, 200);
      const res = await api.call(stranger.token, 'GET', `/api/workspaces/${ws.id}`);
      expect([res.status, res.text]).toEqual([404, WORKSPACE_NOT_FOUND]);
      const accessible = await api.ok(stranger.token, 'GET', '/api/workspaces/accessible', undefined, 200);
      expect(accessible.items.map((w: any) => w.id)).not.toContain(ws.id);
    });

    it('members cannot subscribe (409 ALREADY_MEMBER); closed workspaces refuse new subscribers (409)', async () => {
      const ws = await api.createWorkspace(owner.token, { visibility: 'public' });
      const own = await api.call(owner.token, 'POST', `/api/workspaces/${ws.id}/subscribe`);
      expect([own.status, own.body.code]).toEqual([409, 'ALREADY_MEMBER']);
      await api.ok(owner.token, 'PATCH', `/api/workspaces/${ws.id}/settings`, { allowPublicSubscriptions: false }, 200);
      const closed = await api.call(stranger.token, 'POST', `/api/workspaces/${ws.id}/subscribe`);
      expect([closed.status, closed.body.code]).toEqual([409, 'SUBSCRIPTIONS_CLOSED']);
    });
  });
});
