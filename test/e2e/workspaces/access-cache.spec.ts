import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WorkspacesService } from '@kw/contracts';
import { subjectOf } from '@kw/platform-transport';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from './workspaces-api.js';

/**
 * Data-plane components cache ResolveAccess answers. With a one-minute TTL, every refusal
 * below within the test's seconds comes from the WorkspaceAccessChanged broadcast that the
 * workspaces component sends before it answers the change.
 */
describeWith(['postgres', 'nats'], 'workspace access cache (distributed, real NATS and Postgres)', () => {
  const admin = adminEnv();
  const prefix = `t${randomBytes(4).toString('hex')}`;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;
  let api: ReturnType<typeof workspacesApi>;
  let nc: NatsConnection;
  let resolveCalls = 0;

  beforeAll(async () => {
    db = await createTestDatabase('kw_access_cache');
    platform = await startDistributed(
      {
        DATABASE_URL: db.url,
        NATS_URL: TEST_NATS_URL!,
        NATS_SUBJECT_PREFIX: prefix,
        ACCESS_CACHE_TTL_MS: '60000',
        ...admin,
      },
      120_000,
    );
    api = workspacesApi(platform.url);
    nc = await connect({ servers: TEST_NATS_URL! });
    nc.subscribe(`${prefix}.${subjectOf(WorkspacesService.method.resolveAccess)}`, {
      callback: () => void resolveCalls++,
    });
    await nc.flush();
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    if (platform) await platform.stop();
    await db?.drop();
  }, 60_000);

  const person = async () => {
    const { user, token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    return { id: user.id, email: user.email, auth: token };
  };

  /** A workspace of `owner` with one fragment in it. */
  const workspaceWithFragment = async (owner: { auth: string }, fields: Record<string, unknown> = {}) => {
    const ws = await api.createWorkspace(owner.auth, fields);
    const types = await api.ok(owner.auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const noteTypeId = types.items.find((t: { key: string }) => t.key === 'note').id;
    const { fragment } = await api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, fragmentTypeId: noteTypeId, title: 'T', content: 'Body' },
      201,
    );
    return { id: ws.id as string, fragmentId: fragment.id as string };
  };

  it('asks the workspaces component once for repeated reads by the same credential', async () => {
    const owner = await person();
    const ws = await workspaceWithFragment(owner);
    expect((await api.call(owner.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(200);
    await nc.flush();
    const before = resolveCalls;
    for (let i = 0; i < 5; i++)
      expect((await api.call(owner.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(200);
    await nc.flush();
    expect(resolveCalls - before).toBe(0);
  });

  it('refuses a removed member at once', async () => {
    const [owner, member] = [await person(), await person()];
    const ws = await workspaceWithFragment(owner);
    await api.addMember(owner.auth, ws.id, member, 'viewer');
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(200);
    expect((await api.call(owner.auth, 'DELETE', `/api/workspaces/${ws.id}/members/${member.id}`)).status).toBe(204);
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(404);
  });

  it('lets a new member in at once, after a refusal was answered (and cached)', async () => {
    const [owner, member] = [await person(), await person()];
    const ws = await workspaceWithFragment(owner);
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(404);
    await api.addMember(owner.auth, ws.id, member, 'viewer');
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(200);
  });

  it('applies a role change at once: a demoted editor can no longer write', async () => {
    const [owner, member] = [await person(), await person()];
    const ws = await workspaceWithFragment(owner);
    await api.addMember(owner.auth, ws.id, member, 'collaborator');
    const patch = (title: string) =>
      api.call(member.auth, 'PATCH', `/api/memory-fragments/${ws.fragmentId}`, { title });
    expect((await patch('by the collaborator')).status).toBe(200);
    await api.ok(owner.auth, 'PATCH', `/api/workspaces/${ws.id}/members/${member.id}`, { role: 'viewer' }, 200);
    expect((await patch('by a viewer')).status).toBe(403);
  });

  it('hides a workspace made private from its subscribers at once, and archiving hides it from members', async () => {
    const [owner, reader] = [await person(), await person()];
    const ws = await workspaceWithFragment(owner, { visibility: 'public' });
    await api.ok(reader.auth, 'POST', `/api/workspaces/${ws.id}/subscribe`, undefined, 200);
    expect((await api.call(reader.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(200);
    await api.ok(owner.auth, 'PATCH', `/api/workspaces/${ws.id}`, { visibility: 'private' }, 200);
    expect((await api.call(reader.auth, 'GET', `/api/memory-fragments/${ws.fragmentId}`)).status).toBe(404);

    const [owner2, member] = [await person(), await person()];
    const team = await workspaceWithFragment(owner2);
    await api.addMember(owner2.auth, team.id, member, 'viewer');
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${team.fragmentId}`)).status).toBe(200);
    await api.ok(owner2.auth, 'DELETE', `/api/workspaces/${team.id}`, undefined, 200);
    expect((await api.call(member.auth, 'GET', `/api/memory-fragments/${team.fragmentId}`)).status).toBe(404);
  });
});
