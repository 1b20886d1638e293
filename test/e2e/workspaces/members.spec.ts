import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, createUser, signIn, userWithToken, type TestUser } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND, workspacesApi } from './workspaces-api.js';

interface Account {
  id: string;
  email: string;
  auth: string;
  user: TestUser;
}

const ROLES = ['owner', 'collaborator', 'contributor', 'viewer'] as const;
type Who = (typeof ROLES)[number] | 'subscriber' | 'outsider';

/** Members, invitations and notifications over real HTTP, for every role of the permission matrix. */
describe('workspace members, invitations and notifications', () => {
  const dataDir = tempDir('kw-members-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let api: ReturnType<typeof workspacesApi>;
  const people = {} as Record<Who, Account>;
  // Its own database, so that a test can move an invitation's expiry into the past (7 days otherwise).
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: pg.Client;

  const account = async (): Promise<Account> => {
    const { user, token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    return { id: user.id, email: user.email, auth: token, user };
  };

  /** A private workspace with one member of every role, and a public one with a subscriber too. */
  const team = async (visibility: 'private' | 'public' = 'private') => {
    const ws = await api.createWorkspace(people.owner.auth, { visibility });
    for (const role of ['collaborator', 'contributor', 'viewer'] as const)
      await api.addMember(people.owner.auth, ws.id, people[role], role);
    if (visibility === 'public')
      await api.ok(people.subscriber.auth, 'POST', `/api/workspaces/${ws.id}/subscribe`, undefined, 200);
    return ws;
  };

  beforeAll(async () => {
    database = await createTestDatabase('kw_members');
    db = new pg.Client({ connectionString: database.url });
    platform = await startEmbedded(dataDir, { DATABASE_URL: database.url, ...admin });
    await db.connect();
    api = workspacesApi(platform.url);
    for (const who of [...ROLES, 'subscriber', 'outsider'] as const) people[who] = await account();
  });
  afterAll(async () => {
    await platform?.stop();
    await db?.end();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('invitation -> notification -> accept', () => {
    it('notifies an existing account, which accepts and becomes a member with the invited role', async () => {
      const ws = await api.createWorkspace(people.owner.auth, { name: 'Invite flow' });
      const invitee = await account();

      const invited = await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/members`, {
        email: invitee.email.toUpperCase(),
        role: 'contributor',
      });
      expect(invited.status).toBe(201);
      expect(invited.body.invitation).toEqual({
        id: expect.any(String),
        workspaceId: ws.id,
        workspaceName: 'Invite flow',
        email: invitee.email.toLowerCase(),
        role: 'contributor',
        invitedBy: people.owner.id,
        status: 'pending',
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      });
      const days =
        (Date.parse(invited.body.invitation.expiresAt) - Date.parse(invited.body.invitation.createdAt)) / 86_400_000;
      expect(days).toBeCloseTo(7, 5);
      const invitationId = invited.body.invitation.id;

      const pending = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/invitations`, undefined, 200);
      expect(pending.items.map((i: any) => i.id)).toEqual([invitationId]);

      const notes = await api.ok(invitee.auth, 'GET', '/api/notifications', undefined, 200);
      expect(notes).toMatchObject({ count: 1, totalCount: 1, unreadCount: 1, limit: 20, offset: 0 });
      expect(notes.items[0]).toEqual({
        id: expect.any(String),
        kind: 'workspace.invitation',
        payload: {
          invitationId,
          workspaceId: ws.id,
          workspaceName: 'Invite flow',
          role: 'contributor',
          invitedBy: people.owner.id,
        },
        createdAt: expect.any(String),
        readAt: null,
      });

      const mine = await api.ok(invitee.auth, 'GET', '/api/invitations', undefined, 200);
      expect(mine.items.map((i: any) => [i.id, i.workspaceName, i.role])).toEqual([
        [invitationId, 'Invite flow', 'contributor'],
      ]);

      // Before accepting, the private workspace is still hidden from the invitee.
      const before = await api.call(invitee.auth, 'GET', `/api/workspaces/${ws.id}`);
      expect([before.status, before.text]).toEqual([404, WORKSPACE_NOT_FOUND]);

      // Anybody else cannot accept it, nor tell it exists.
      for (const other of [people.outsider, people.owner]) {
        const res = await api.call(other.auth, 'POST', `/api/invitations/${invitationId}/accept`);
        expect([res.status, res.body]).toEqual([404, { error: 'Invitation not found', code: 'NOT_FOUND' }]);
      }

      const accepted = await api.call(invitee.auth, 'POST', `/api/invitations/${invitationId}/accept`);
      expect(accepted.status).toBe(200);
      expect(accepted.body.workspace).toMatchObject({ id: ws.id, relation: 'contributor', role: 'contributor' });
      expect(accepted.body.invitation).toMatchObject({ id: invitationId, status: 'accepted' });

      const members = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/members`, undefined, 200);
      expect(members.items).toContainEqual({
        userId: invitee.id,
        email: invitee.email,
        displayName: invitee.user.displayName,
        role: 'contributor',
        joinedAt: expect.any(String),
      });
      expect(members.items).toContainEqual(
        expect.objectContaining({ userId: people.owner.id, role: 'owner', email: people.owner.email }),
      );
      expect(members.count).toBe(2);

      const after = await api.ok(invitee.auth, 'GET', '/api/notifications?unreadOnly=true', undefined, 200);
      expect(after.totalCount).toBe(0);
      expect((await api.ok(invitee.auth, 'GET', '/api/invitations', undefined, 200)).count).toBe(0);
      expect(
        (await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/invitations`, undefined, 200)).count,
      ).toBe(0);
      const again = await api.call(invitee.auth, 'POST', `/api/invitations/${invitationId}/accept`);
      expect(again.status).toBe(404);
    });

    it('invites an email without an account; owners revoke; a revoked invitation cannot be accepted', async () => {
      const ws = await api.createWorkspace(people.owner.auth);
      const email = `later-${Date.now()}@example.test`;
      const { invitation } = await api.ok(
        people.owner.auth,
        'POST',
        `/api/workspaces/${ws.id}/members`,
        { email, role: 'viewer' },
        201,
      );

      const notAllowed = await api.call(
        people.outsider.auth,
        'DELETE',
        `/api/workspaces/${ws.id}/invitations/${invitation.id}`,
      );
      expect([notAllowed.status, notAllowed.text]).toEqual([404, WORKSPACE_NOT_FOUND]);

      const revoked = await api.call(
        people.owner.auth,
        'DELETE',
        `/api/workspaces/${ws.id}/invitations/${invitation.id}`,
      );
      expect(revoked.status).toBe(200);
      expect(revoked.body.invitation).toMatchObject({ id: invitation.id, status: 'revoked' });
      expect(
        (await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/invitations`, undefined, 200)).count,
      ).toBe(0);
      for (const id of [invitation.id, UNKNOWN_ID, 'nope']) {
        const res = await api.call(people.owner.auth, 'DELETE', `/api/workspaces/${ws.id}/invitations/${id}`);
        expect([res.status, res.body]).toEqual([404, { error: 'Invitation not found', code: 'NOT_FOUND' }]);
      }

      // The account created afterwards finds nothing to accept.
      const late = await createUser(platform.url, admin.ADMIN_TOKEN, { email });
      const session = await signIn(platform.url, late.email, late.password);
      expect((await api.ok(session, 'GET', '/api/invitations', undefined, 200)).count).toBe(0);
      expect((await api.call(session, 'POST', `/api/invitations/${invitation.id}/accept`)).status).toBe(404);
    });

    it('an accept racing a revoke: exactly one wins, the other answers 404, and the membership agrees', async () => {
      const ws = await api.createWorkspace(people.owner.auth);
      const W = `/api/workspaces/${ws.id}`;
      for (let round = 0; round < 10; round++) {
        const invitee = await account();
        const { invitation } = await api.ok(
          people.owner.auth,
          'POST',
          `${W}/members`,
          { email: invitee.email, role: 'viewer' },
          201,
        );
        const [accepted, revoked] = await Promise.all([
          api.call(invitee.auth, 'POST', `/api/invitations/${invitation.id}/accept`),
          api.call(people.owner.auth, 'DELETE', `${W}/invitations/${invitation.id}`),
        ]);
        const statuses = [accepted.status, revoked.status].sort();
        expect([round, statuses]).toEqual([round, [200, 404]]);
        const loser = accepted.status === 404 ? accepted : revoked;
        expect(loser.body).toEqual({ error: 'Invitation not found', code: 'NOT_FOUND' });
        const members = await api.ok(people.owner.auth, 'GET', `${W}/members`, undefined, 200);
        const isMember = members.items.some((m: any) => m.userId === invitee.id);
        expect([round, isMember]).toEqual([round, accepted.status === 200]);
        if (revoked.status === 200) expect(revoked.body.invitation.status).toBe('revoked');
        else expect(accepted.body.invitation.status).toBe('accepted');
      }
    });

    it('an invitation made before the account existed can be accepted once it does', async () => {
      const ws = await api.createWorkspace(people.owner.auth);
      const email = `future-${Date.now()}@example.test`;
      const { invitation } = await api.ok(
        people.owner.auth,
        'POST',
        `/api/workspaces/${ws.id}/members`,
        { email, role: 'collaborator' },
        201,
      );
      const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN, { email });
      const mine = await api.ok(token, 'GET', '/api/invitations', undefined, 200);
      expect(mine.items.map((i: any) => i.id)).toEqual([invitation.id]);
      const accepted = await api.ok(token, 'POST', `/api/invitations/${invitation.id}/accept`, undefined, 200);
      expect(accepted.workspace.role).toBe('collaborator');
    });

    it.each([
      ['owner', { role: 'owner' }, 'INVALID_ROLE'],
      ['an unknown role', { role: 'admin' }, 'INVALID_ROLE'],
      ['a malformed email', { email: 'not-an-email' }, 'VALIDATION_FAILED'],
      ['a missing role', { role: undefined }, 'VALIDATION_FAILED'],
      ['an unknown field', { workspaceId: UNKNOWN_ID }, 'VALIDATION_FAILED'],
    ])('refuses %s with 400 %s', async (_what, patch, code) => {
      const ws = await api.createWorkspace(people.owner.auth);
      const res = await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/members`, {
        email: people.outsider.email,
        role: 'viewer',
        ...patch,
      });
      expect([res.status, res.body.code]).toEqual([400, code]);
      expect(
        (await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/invitations`, undefined, 200)).count,
      ).toBe(0);
    });

    it('answers 409 INVITATION_EXPIRED to every accept of an expired invitation, also once another is made', async () => {
      const ws = await api.createWorkspace(people.owner.auth);
      const invite = async (who: Account) =>
        (
          await api.ok(
            people.owner.auth,
            'POST',
            `/api/workspaces/${ws.id}/members`,
            { email: who.email, role: 'viewer' },
            201,
          )
        ).invitation;
      const [first, second] = [await account(), await account()];
      const expired = [await invite(first), await invite(second)];
      await db.query(
        "UPDATE control.workspace_invitations SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)",
        [expired.map((i) => i.id)],
      );
      const accept = (who: Account, id: string) => api.call(who.auth, 'POST', `/api/invitations/${id}/accept`);
      // Accepted twice, as a person clicking the link again does.
      for (let i = 0; i < 2; i++) {
        const res = await accept(first, expired[0].id);
        expect([res.status, res.body.code]).toEqual([409, 'INVITATION_EXPIRED']);
      }
      // A new invitation to the workspace marks the other expired one expired too: still 409 to its invitee.
      await invite(await account());
      for (let i = 0; i < 2; i++) {
        const res = await accept(second, expired[1].id);
        expect([res.status, res.body.code]).toEqual([409, 'INVITATION_EXPIRED']);
      }
      // To anybody else it does not exist; and nobody became a member.
      expect((await accept(second, expired[0].id)).status).toBe(404);
      const members = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/members`, undefined, 200);
      expect(members.items.map((m: any) => m.userId)).toEqual([people.owner.id]);
    });

    it('refuses a duplicate pending invitation and inviting a member (409)', async () => {
      const ws = await team();
      const first = await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/members`, {
        email: people.outsider.email,
        role: 'viewer',
      });
      expect(first.status).toBe(201);
      const dup = await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/members`, {
        email: people.outsider.email,
        role: 'collaborator',
      });
      expect([dup.status, dup.body.code]).toEqual([409, 'INVITATION_PENDING']);
      for (const member of [people.viewer, people.owner]) {
        const res = await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/members`, {
          email: member.email,
          role: 'viewer',
        });
        expect([member.email, res.status, res.body.code]).toEqual([member.email, 409, 'ALREADY_MEMBER']);
      }
    });
  });

  describe('permission matrix per route', () => {
    const everyone: Who[] = ['owner', 'collaborator', 'contributor', 'viewer', 'subscriber', 'outsider'];

    /** Expected status per caller on a public workspace (a private one answers 404 to subscriber and outsider). */
    const cases: {
      route: string;
      run: (ws: any, who: Who) => [string, string, unknown?];
      expect: Record<Who, number>;
    }[] = [
      {
        route: 'GET workspace',
        run: (ws) => ['GET', `/api/workspaces/${ws.id}`],
        expect: { owner: 200, collaborator: 200, contributor: 200, viewer: 200, subscriber: 200, outsider: 200 },
      },
      {
        route: 'PATCH workspace',
        run: (ws) => ['PATCH', `/api/workspaces/${ws.id}`, { description: 'changed' }],
        expect: { owner: 200, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'GET settings',
        run: (ws) => ['GET', `/api/workspaces/${ws.id}/settings`],
        expect: { owner: 200, collaborator: 200, contributor: 200, viewer: 200, subscriber: 200, outsider: 200 },
      },
      {
        route: 'PATCH settings',
        run: (ws) => ['PATCH', `/api/workspaces/${ws.id}/settings`, { enrichment: { tags: true } }],
        expect: { owner: 200, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'GET members',
        run: (ws) => ['GET', `/api/workspaces/${ws.id}/members`],
        expect: { owner: 200, collaborator: 200, contributor: 200, viewer: 200, subscriber: 403, outsider: 403 },
      },
      {
        route: 'GET invitations',
        run: (ws) => ['GET', `/api/workspaces/${ws.id}/invitations`],
        expect: { owner: 200, collaborator: 200, contributor: 200, viewer: 200, subscriber: 403, outsider: 403 },
      },
      {
        route: 'POST members (invite)',
        run: (ws, who) => [
          'POST',
          `/api/workspaces/${ws.id}/members`,
          { email: `m-${who}-${ws.id.slice(0, 8)}@example.test`, role: 'viewer' },
        ],
        expect: { owner: 201, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'PATCH member role',
        run: (ws) => ['PATCH', `/api/workspaces/${ws.id}/members/${people.viewer.id}`, { role: 'viewer' }],
        expect: { owner: 200, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'DELETE another member',
        run: (ws, who) => [
          'DELETE',
          `/api/workspaces/${ws.id}/members/${who === 'contributor' ? people.collaborator.id : people.contributor.id}`,
        ],
        expect: { owner: 204, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'DELETE invitation',
        run: (ws) => ['DELETE', `/api/workspaces/${ws.id}/invitations/${UNKNOWN_ID}`],
        // the owner may revoke; this id does not exist
        expect: { owner: 404, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
      {
        route: 'DELETE workspace (archive)',
        run: (ws) => ['DELETE', `/api/workspaces/${ws.id}`],
        expect: { owner: 200, collaborator: 403, contributor: 403, viewer: 403, subscriber: 403, outsider: 403 },
      },
    ];

    for (const visibility of ['public', 'private'] as const) {
      for (const c of cases) {
        it(`${c.route} on a ${visibility} workspace`, async () => {
          const ws = await team(visibility);
          // The owner goes last: its call may archive the workspace or remove a member.
          for (const who of [...everyone.filter((w) => w !== 'owner'), 'owner'] as Who[]) {
            const [method, path, body] = c.run(ws, who);
            const res = await api.call(people[who].auth, method, path, body);
            const hidden = visibility === 'private' && (who === 'subscriber' || who === 'outsider');
            const expected = hidden ? 404 : c.expect[who];
            expect({ who, status: res.status }).toEqual({ who, status: expected });
            if (hidden) expect(res.text).toBe(WORKSPACE_NOT_FOUND);
          }
        });
      }
    }

    it('restore: owners only', async () => {
      const ws = await team();
      await api.ok(people.owner.auth, 'DELETE', `/api/workspaces/${ws.id}`, undefined, 200);
      for (const who of ['collaborator', 'contributor', 'viewer', 'outsider'] as const) {
        // An archived workspace is hidden from everyone but its owners' restore.
        const res = await api.call(people[who].auth, 'POST', `/api/workspaces/${ws.id}/restore`);
        expect({ who, status: res.status, text: res.text }).toEqual({ who, status: 404, text: WORKSPACE_NOT_FOUND });
      }
      expect((await api.call(people.owner.auth, 'POST', `/api/workspaces/${ws.id}/restore`)).status).toBe(200);
      expect((await api.call(people.viewer.auth, 'GET', `/api/workspaces/${ws.id}`)).status).toBe(200);
    });
  });

  describe('roles and owners', () => {
    it('owners change roles, including to owner; unknown roles and mass assignment are refused', async () => {
      const ws = await team();
      const promoted = await api.call(
        people.owner.auth,
        'PATCH',
        `/api/workspaces/${ws.id}/members/${people.viewer.id}`,
        { role: 'collaborator' },
      );
      expect(promoted.status).toBe(200);
      expect(promoted.body.member).toMatchObject({
        userId: people.viewer.id,
        role: 'collaborator',
        email: people.viewer.email,
      });

      const bad = await api.call(people.owner.auth, 'PATCH', `/api/workspaces/${ws.id}/members/${people.viewer.id}`, {
        role: 'admin',
      });
      expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_ROLE']);
      for (const extra of [{ userId: people.owner.id }, { workspaceId: UNKNOWN_ID }, { email: 'x@example.test' }]) {
        const res = await api.call(people.owner.auth, 'PATCH', `/api/workspaces/${ws.id}/members/${people.viewer.id}`, {
          role: 'owner',
          ...extra,
        });
        expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      }
      const members = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/members`, undefined, 200);
      expect(members.items.find((m: any) => m.userId === people.viewer.id).role).toBe('collaborator');

      for (const id of [people.outsider.id, UNKNOWN_ID, 'not-a-uuid']) {
        const res = await api.call(people.owner.auth, 'PATCH', `/api/workspaces/${ws.id}/members/${id}`, {
          role: 'viewer',
        });
        expect([res.status, res.body]).toEqual([404, { error: 'Member not found', code: 'NOT_FOUND' }]);
      }
    });

    it('the last owner can be neither demoted nor removed, nor leave (409 LAST_OWNER)', async () => {
      const ws = await team();
      const demote = await api.call(people.owner.auth, 'PATCH', `/api/workspaces/${ws.id}/members/${people.owner.id}`, {
        role: 'viewer',
      });
      expect([demote.status, demote.body.code]).toEqual([409, 'LAST_OWNER']);
      const leave = await api.call(people.owner.auth, 'DELETE', `/api/workspaces/${ws.id}/members/${people.owner.id}`);
      expect([leave.status, leave.body.code]).toEqual([409, 'LAST_OWNER']);
      const members = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/members`, undefined, 200);
      expect(members.items.find((m: any) => m.userId === people.owner.id).role).toBe('owner');

      // With a second owner, the first may step down and then leave.
      await api.ok(
        people.owner.auth,
        'PATCH',
        `/api/workspaces/${ws.id}/members/${people.collaborator.id}`,
        { role: 'owner' },
        200,
      );
      const stepDown = await api.call(
        people.owner.auth,
        'PATCH',
        `/api/workspaces/${ws.id}/members/${people.owner.id}`,
        { role: 'contributor' },
      );
      expect(stepDown.status).toBe(200);
      // ...and the remaining owner is now the last one.
      const last = await api.call(
        people.collaborator.auth,
        'DELETE',
        `/api/workspaces/${ws.id}/members/${people.collaborator.id}`,
      );
      expect([last.status, last.body.code]).toEqual([409, 'LAST_OWNER']);
      const gone = await api.call(people.owner.auth, 'DELETE', `/api/workspaces/${ws.id}/members/${people.owner.id}`);
      expect(gone.status).toBe(204);
      const hidden = await api.call(people.owner.auth, 'GET', `/api/workspaces/${ws.id}`);
      expect([hidden.status, hidden.text]).toEqual([404, WORKSPACE_NOT_FOUND]);
    });

    it('any member may leave; the workspace is then hidden from them', async () => {
      const ws = await team();
      for (const who of ['viewer', 'contributor'] as const) {
        const res = await api.call(people[who].auth, 'DELETE', `/api/workspaces/${ws.id}/members/${people[who].id}`);
        expect({ who, status: res.status, text: res.text }).toEqual({ who, status: 204, text: '' });
        const after = await api.call(people[who].auth, 'GET', `/api/workspaces/${ws.id}`);
        expect([after.status, after.text]).toEqual([404, WORKSPACE_NOT_FOUND]);
      }
      const members = await api.ok(people.owner.auth, 'GET', `/api/workspaces/${ws.id}/members`, undefined, 200);
      expect(members.items.map((m: any) => m.role).sort()).toEqual(['collaborator', 'owner']);
    });

    it('a subscriber is no member: leaving answers 404 Member not found', async () => {
      const ws = await team('public');
      const res = await api.call(
        people.subscriber.auth,
        'DELETE',
        `/api/workspaces/${ws.id}/members/${people.subscriber.id}`,
      );
      expect([res.status, res.body]).toEqual([404, { error: 'Member not found', code: 'NOT_FOUND' }]);
    });

    it('members management needs the members scopes', async () => {
      const ws = await team();
      const session = await signIn(platform.url, people.owner.user.email, people.owner.user.password);
      const { token: readOnly } = await createToken(platform.url, session, { scopes: ['workspaces:read'] });
      const { token: membersRead } = await createToken(platform.url, session, { scopes: ['members:read'] });
      expect((await api.call(readOnly, 'GET', `/api/workspaces/${ws.id}/members`)).status).toBe(403);
      expect((await api.call(membersRead, 'GET', `/api/workspaces/${ws.id}/members`)).status).toBe(200);
      const invite = await api.call(membersRead, 'POST', `/api/workspaces/${ws.id}/members`, {
        email: 'scope@example.test',
        role: 'viewer',
      });
      expect([invite.status, invite.body.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('notifications', () => {
    it('lists newest first with unreadOnly and pagination; marks one and all read; hides others', async () => {
      const invitee = await account();
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const ws = await api.createWorkspace(people.owner.auth, { name: `notify ${i}` });
        names.push(ws.name);
        await api.ok(
          people.owner.auth,
          'POST',
          `/api/workspaces/${ws.id}/members`,
          { email: invitee.email, role: 'viewer' },
          201,
        );
      }
      const all = await api.ok(invitee.auth, 'GET', '/api/notifications', undefined, 200);
      expect(all.items.map((n: any) => n.payload.workspaceName)).toEqual([...names].reverse());
      const page = await api.ok(invitee.auth, 'GET', '/api/notifications?limit=2&offset=1', undefined, 200);
      expect(page).toMatchObject({ count: 2, totalCount: 3, limit: 2, offset: 1 });
      expect(page.items.map((n: any) => n.id)).toEqual(all.items.slice(1).map((n: any) => n.id));

      const first = all.items[0];
      const stranger = await api.call(people.outsider.auth, 'POST', `/api/notifications/${first.id}/read`);
      expect([stranger.status, stranger.body]).toEqual([404, { error: 'Notification not found', code: 'NOT_FOUND' }]);
      expect((await api.call(invitee.auth, 'POST', '/api/notifications/not-a-uuid/read')).status).toBe(404);

      const read = await api.call(invitee.auth, 'POST', `/api/notifications/${first.id}/read`);
      expect(read.status).toBe(200);
      expect(read.body.notification).toMatchObject({ id: first.id, readAt: expect.any(String) });
      const unread = await api.ok(invitee.auth, 'GET', '/api/notifications?unreadOnly=true', undefined, 200);
      expect(unread).toMatchObject({ count: 2, totalCount: 2, unreadCount: 2 });
      expect(unread.items.map((n: any) => n.id)).not.toContain(first.id);

      const allRead = await api.call(invitee.auth, 'POST', '/api/notifications/read-all');
      expect([allRead.status, allRead.body]).toEqual([200, { updated: 2 }]);
      const none = await api.ok(invitee.auth, 'GET', '/api/notifications?unreadOnly=true', undefined, 200);
      expect(none).toMatchObject({ count: 0, totalCount: 0, unreadCount: 0 });
      const outsiders = await api.ok(people.outsider.auth, 'GET', '/api/notifications', undefined, 200);
      expect(outsiders.items.map((n: any) => n.id)).not.toContain(first.id);
    });

    it.each(['limit=0', 'limit=101', 'unreadOnly=maybe', 'offset=-1', 'kind=x'])(
      'refuses %s with 400',
      async (query) => {
        const res = await api.call(people.outsider.auth, 'GET', `/api/notifications?${query}`);
        expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      },
    );

    it('needs profile scopes', async () => {
      const session = await signIn(platform.url, people.outsider.user.email, people.outsider.user.password);
      const { token } = await createToken(platform.url, session, { scopes: ['workspaces:read'] });
      expect((await api.call(token, 'GET', '/api/notifications')).status).toBe(403);
      expect((await api.call(token, 'POST', '/api/notifications/read-all')).status).toBe(403);
    });
  });
});
