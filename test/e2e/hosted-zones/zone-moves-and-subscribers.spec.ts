import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KnowledgeClient } from '@kw/client';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { ALLOW_HTTP_ENDPOINTS, enrolledLeaf, poll } from '../../support/hosted-zones.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

const MARKER = `subscriber-marker-${randomUUID().slice(0, 8)}`;

/** The claims of a handoff token (the Leaf checks its signature; here only what it says). */
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/**
 * Two gaps the black-box round on hosted zones found (docs/hosted-zones.md): a zone could be
 * deleted while a workspace moved into it, which stranded the move; and a public Leaf-backed
 * workspace's readers (subscribers, or any signed-in user) got handoff tokens every Leaf
 * refused. An embedded Cloud and a real Leaf process, each on its own database.
 */
describeWith(['postgres'], 'hosted zones: deleting a zone during a move, and public readers at the Leaf', () => {
  const admin = adminEnv();
  const dirs: string[] = [];
  let cloudDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let leafDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let cloudSql: pg.Client;
  let cloud: PlatformProcess;
  let leaf: PlatformProcess | undefined;
  let leafUrl: string;
  let zoneId: string;
  let owner: { token: string };
  const dir = () => {
    const d = tempDir('kw-zone-subs-');
    dirs.push(d);
    return d;
  };
  const api = () => workspacesApi(cloud.url);

  /** A request to the Leaf with a handoff token. */
  async function atLeaf(token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${leafUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  beforeAll(async () => {
    cloudDb = await createTestDatabase('kw_zone_subs_cloud');
    leafDb = await createTestDatabase('kw_zone_subs_leaf');
    cloudSql = new pg.Client({ connectionString: cloudDb.url });
    await cloudSql.connect();
    cloud = await startEmbedded(dir(), { DATABASE_URL: cloudDb.url, ...admin, ...ALLOW_HTTP_ENDPOINTS });
    owner = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    ({ leaf, leafUrl, zoneId } = await enrolledLeaf({
      cloudUrl: cloud.url,
      ownerToken: owner.token,
      databaseUrl: leafDb.url,
      dataDir: dir(),
    }));
  }, 180_000);

  afterAll(async () => {
    await leaf?.stop();
    await cloud?.stop();
    await cloudSql?.end();
    await cloudDb?.drop();
    await leafDb?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('refuses to delete the zone a workspace is moving into, naming the move, and the move then completes', async () => {
    const wsId = (await api().createWorkspace(owner.token, { name: 'Moving in' })).id;
    const types = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/fragment-types`, undefined, 200)).items;
    await api().ok(
      owner.token,
      'POST',
      '/api/memory-fragments',
      { workspaceId: wsId, fragmentTypeId: types[0].id, title: 'Box list', content: 'Three boxes.' },
      201,
    );
    // The zone holds no workspace yet: only the move stands in the way of deleting it.
    expect(
      (await api().ok(owner.token, 'GET', `/api/hosted-zones/${zoneId}`, undefined, 200)).hostedZone,
    ).toMatchObject({ workspaceCount: 0 });
    // The owner deletes the zone while the move copies: just before the client asks for the import's handoff.
    let deleteAnswer: { status: number; body: any } | undefined;
    let moveIdAtDelete = '';
    const client = new KnowledgeClient({
      baseUrl: cloud.url,
      token: owner.token,
      fetch: async (input, init) => {
        const url = String(input);
        const handoffOfMove = url.match(/\/api\/workspaces\/[^/]+\/moves\/([^/]+)\/handoff$/);
        if (handoffOfMove && !deleteAnswer) {
          moveIdAtDelete = handoffOfMove[1]!;
          deleteAnswer = await api().call(owner.token, 'DELETE', `/api/hosted-zones/${zoneId}`);
        }
        return fetch(input, init);
      },
    });
    const moved = await client.moveWorkspace(wsId, zoneId);
    expect(deleteAnswer?.status, JSON.stringify(deleteAnswer?.body)).toBe(409);
    expect(deleteAnswer!.body).toMatchObject({ code: 'CONFLICT', moveId: moveIdAtDelete, workspaceId: wsId });
    expect(moved).toMatchObject({ id: moveIdAtDelete, status: 'done', toHostedZoneId: zoneId, leftoverRemoved: true });
    expect((await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace).toMatchObject({
      status: 'active',
      hostedZoneId: zoneId,
      endpointUrl: leafUrl,
    });
  }, 180_000);

  it('refuses to delete a zone during a move into it until the move is aborted, and never hands off for a deleted zone', async () => {
    // Zone D: this test plays its Leaf through the Leaf's link routes (enroll, heartbeat, ready, removed).
    const created = await api().ok(owner.token, 'POST', '/api/hosted-zones', { name: 'Zone D', region: 'eu' }, 201);
    const zoneD = created.hostedZone.id as string;
    const enrolled = await api().call(undefined, 'POST', '/api/hosted-zones/enroll', {
      enrollmentToken: created.enrollmentToken,
      endpointUrl: 'http://127.0.0.1:9/leaf-d',
      leafVersion: 'test',
    });
    expect(enrolled.status).toBe(200);
    const asLeafD = enrolled.body.zoneCredential as string;
    const leafD = (path: string, body: unknown = {}) => api().call(asLeafD, 'POST', `/api/hosted-zones/${path}`, body);
    const wsId = (await api().createWorkspace(owner.token, { name: 'Moving to D' })).id;
    const types = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/fragment-types`, undefined, 200)).items;
    const moveTo = async () => {
      const { move } = await api().ok(
        owner.token,
        'POST',
        `/api/workspaces/${wsId}/moves`,
        { hostedZoneId: zoneD },
        201,
      );
      expect((await leafD('heartbeat')).body.placements.map((p: any) => p.workspaceId)).toEqual([wsId]);
      expect((await leafD(`placements/${wsId}/ready`)).status).toBe(200);
      const m = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/moves/${move.id}`, undefined, 200)).move;
      expect(m.status).toBe('copying');
      return move.id as string;
    };
    const moveId = await moveTo();

    const refused = await api().call(owner.token, 'DELETE', `/api/hosted-zones/${zoneD}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', moveId, workspaceId: wsId, moveCount: 1 });
    expect(refused.body.error).toContain(moveId);
    // The zone and the move are untouched: the move's import can still be handed off, and abort ends it.
    expect((await api().call(owner.token, 'GET', `/api/hosted-zones/${zoneD}`)).status).toBe(200);
    const handoff = await api().ok(
      owner.token,
      'POST',
      `/api/workspaces/${wsId}/moves/${moveId}/handoff`,
      undefined,
      200,
    );
    expect(handoff).toMatchObject({ hostedZoneId: zoneD, endpointUrl: 'http://127.0.0.1:9/leaf-d' });
    const aborted = await api().ok(
      owner.token,
      'POST',
      `/api/workspaces/${wsId}/moves/${moveId}/abort`,
      undefined,
      200,
    );
    expect(aborted.move).toMatchObject({ status: 'aborted', leftoverRemoved: false });
    await api().ok(
      owner.token,
      'POST',
      '/api/memory-fragments',
      { workspaceId: wsId, fragmentTypeId: types[0].id, title: 'Writable again', content: 'Stayed in the Cloud.' },
      201,
    );
    // Zone D's Leaf drops the aborted target and reports it.
    expect((await leafD('heartbeat')).body.removedWorkspaceIds).toEqual([wsId]);
    expect((await leafD(`placements/${wsId}/removed`)).status).toBe(204);
    expect(
      (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/moves/${moveId}`, undefined, 200)).move
        .leftoverRemoved,
    ).toBe(true);

    // A zone deleted under a move anyway (before deletes were refused): no handoff, no completion; abort still ends it.
    const stranded = await moveTo();
    await cloudSql.query('DELETE FROM control.hosted_zones WHERE id = $1', [zoneD]);
    const noHandoff = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${stranded}/handoff`);
    expect(noHandoff.status).toBe(409);
    expect(noHandoff.body).toMatchObject({ code: 'CONFLICT', toHostedZoneId: zoneD });
    const noComplete = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${stranded}/complete`, {});
    expect(noComplete.body).toMatchObject({ code: 'CONFLICT', toHostedZoneId: zoneD });
    await api().ok(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${stranded}/abort`, undefined, 200);
    expect((await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace).toMatchObject({
      status: 'active',
      hostedZoneId: null,
    });
  }, 120_000);

  it("lets a public Leaf workspace's subscribers and other readers read and search it at the Leaf, never write, until it becomes private", async () => {
    const wsId = (await api().createWorkspace(owner.token, { name: 'Open notes', hostedZoneId: zoneId })).id;
    await poll('workspace active', async () => {
      const { workspace } = await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200);
      return workspace.status === 'active';
    });
    const ownerToken = (await api().ok(owner.token, 'POST', `/api/workspaces/${wsId}/handoff`, undefined, 200)).token;
    const types = (await atLeaf(ownerToken, 'GET', `/api/workspaces/${wsId}/fragment-types`)).body.items;
    const written = await atLeaf(ownerToken, 'POST', '/api/memory-fragments', {
      workspaceId: wsId,
      fragmentTypeId: types[0].id,
      title: 'Opening hours',
      content: `The library opens at nine. ${MARKER}`,
    });
    expect(written.status).toBe(201);
    const fragmentId = written.body.fragment.id as string;
    await api().ok(owner.token, 'PATCH', `/api/workspaces/${wsId}`, { visibility: 'public' }, 200);

    const subscriber = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    const passerby = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    await api().ok(subscriber.token, 'POST', `/api/workspaces/${wsId}/subscribe`, undefined, 200);
    const handoffOf = async (token: string) =>
      (await api().ok(token, 'POST', `/api/workspaces/${wsId}/handoff`, undefined, 200)).token as string;
    const readerTokens = { subscriber: await handoffOf(subscriber.token), passerby: await handoffOf(passerby.token) };

    for (const token of Object.values(readerTokens)) {
      expect(claimsOf(token)).toMatchObject({
        kw_role: 'subscriber',
        kw_actions: ['fragments:read', 'collections:read', 'search:read'],
      });
      const read = await atLeaf(token, 'GET', `/api/memory-fragments/${fragmentId}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.fragment.content).toContain(MARKER);
      const listed = await atLeaf(token, 'GET', `/api/memory-fragments?workspaceId=${wsId}`);
      expect(listed.body.items.map((f: any) => f.id)).toEqual([fragmentId]);
      await poll('search on the Leaf', async () => {
        const found = await atLeaf(token, 'GET', `/api/search?workspaceId=${wsId}&q=library%20opens`);
        expect(found.status).toBe(200);
        return JSON.stringify(found.body).includes(fragmentId);
      });
      // Read-only: every write is refused, new content and the owner's alike.
      const create = await atLeaf(token, 'POST', '/api/memory-fragments', {
        workspaceId: wsId,
        fragmentTypeId: types[0].id,
        title: 'Graffiti',
        content: 'Not allowed.',
      });
      expect(create.status).toBe(403);
      expect(create.body.code).toBe('FORBIDDEN');
      const edit = await atLeaf(token, 'PATCH', `/api/memory-fragments/${fragmentId}`, { title: 'Closed' });
      expect(edit.status).toBe(403);
      expect((await atLeaf(token, 'DELETE', `/api/memory-fragments/${fragmentId}`)).status).toBe(403);
      const collection = await atLeaf(token, 'POST', `/api/workspaces/${wsId}/collections`, { name: 'Mine' });
      expect(collection.status).toBe(403);
    }
    expect((await atLeaf(ownerToken, 'GET', `/api/memory-fragments/${fragmentId}`)).body.fragment.title).toBe(
      'Opening hours',
    );

    // Private again: the readers' tokens are revoked at the Leaf (within a heartbeat), the owner's are not.
    await api().ok(owner.token, 'PATCH', `/api/workspaces/${wsId}`, { visibility: 'private' }, 200);
    for (const token of Object.values(readerTokens)) {
      const refused = await poll('the reader refused at the Leaf', async () => {
        const res = await atLeaf(token, 'GET', `/api/memory-fragments/${fragmentId}`);
        return res.status === 401 && res;
      });
      expect(refused.body.error).toContain('revoked');
    }
    expect((await atLeaf(ownerToken, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(200);
    expect((await api().call(subscriber.token, 'POST', `/api/workspaces/${wsId}/handoff`)).status).toBe(404);
  }, 180_000);
});
