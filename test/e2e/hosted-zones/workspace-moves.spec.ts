import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KnowledgeClient, type MoveProgress } from '@kw/client';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { createTestDatabase, tablesHolding } from '../../support/postgres.js';
import { ALLOW_HTTP_ENDPOINTS, enrolledLeaf, poll } from '../../support/hosted-zones.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

const MARKER = `moving-marker-${randomUUID()}`;
const FRAGMENTS = 1000;
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};

interface Snapshot {
  id: string;
  key: string;
  title: string;
  content: string;
  tags: string[];
  summary: string | null;
  archived: boolean;
}

/**
 * Moving a workspace between the Cloud and a Leaf (docs/portable-workspaces.md#moving), with an
 * embedded Cloud and a real Leaf process on their own databases: a workspace of 1,000 fragments
 * goes to the Leaf and back through the TypeScript client with nothing lost, and while it lives
 * on the Leaf no table of the Cloud's database holds its content. Around it: read-only during a
 * move on either plane, files refused unless left behind, abort, and the Leaf's copy purged.
 */
describeWith(['postgres'], 'moving a workspace between the Cloud and a Leaf', () => {
  const admin = adminEnv();
  const dirs: string[] = [];
  let cloudDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let leafDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let cloudSql: pg.Client;
  let leafSql: pg.Client;
  let cloud: PlatformProcess;
  let leaf: PlatformProcess | undefined;
  let leafUrl: string;
  let zoneId: string;
  let owner: { token: string };
  const dir = () => {
    const d = tempDir('kw-moves-');
    dirs.push(d);
    return d;
  };
  const api = () => workspacesApi(cloud.url);

  /** Every fragment of the workspace, wherever it lives, through the client (archived ones too). */
  async function snapshot(client: KnowledgeClient, workspaceId: string): Promise<Map<string, Snapshot>> {
    const ws = client.workspace(workspaceId);
    const all = new Map<string, Snapshot>();
    for (let offset = 0; ; offset += 500) {
      const page = await ws.fragments.list({ limit: 500, offset, includeArchived: true });
      for (const f of page.items)
        all.set(f.key ?? f.title, {
          id: f.id,
          key: f.key ?? '',
          title: f.title,
          content: f.content,
          tags: [...f.tags].sort(),
          summary: f.summary ?? null,
          archived: f.archivedAt !== null,
        });
      if (page.items.length < 500) break;
    }
    return all;
  }

  beforeAll(async () => {
    cloudDb = await createTestDatabase('kw_moves_cloud');
    leafDb = await createTestDatabase('kw_moves_leaf');
    cloudSql = new pg.Client({ connectionString: cloudDb.url });
    await cloudSql.connect();
    leafSql = new pg.Client({ connectionString: leafDb.url });
    await leafSql.connect();
    cloud = await startEmbedded(dir(), { DATABASE_URL: cloudDb.url, ...admin, ...UNLIMITED, ...ALLOW_HTTP_ENDPOINTS });
    owner = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    ({ leaf, leafUrl, zoneId } = await enrolledLeaf({
      cloudUrl: cloud.url,
      ownerToken: owner.token,
      databaseUrl: leafDb.url,
      dataDir: dir(),
      env: UNLIMITED,
    }));
  }, 180_000);

  afterAll(async () => {
    await leaf?.stop();
    await cloud?.stop();
    await cloudSql?.end();
    await leafSql?.end();
    await cloudDb?.drop();
    await leafDb?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('moves a workspace of 1,000 fragments to the Leaf and back with nothing lost, and no content in the Cloud meanwhile', async () => {
    const client = new KnowledgeClient({ baseUrl: cloud.url, token: owner.token });
    const wsId = (await api().createWorkspace(owner.token, { name: 'Moving house' })).id;
    const types = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/fragment-types`, undefined, 200)).items;
    const note = types.find((t: any) => t.key === 'note') ?? types[0];
    const recipe = (
      await api().ok(
        owner.token,
        'POST',
        `/api/workspaces/${wsId}/fragment-types`,
        { key: 'recipe', name: 'Recipe', description: 'How to cook it' },
        201,
      )
    ).fragmentType;
    const ids: string[] = [];
    for (let start = 0; start < FRAGMENTS; start += 500) {
      const items = Array.from({ length: 500 }, (_, j) => {
        const i = start + j;
        return {
          fragmentTypeId: i % 10 === 0 ? recipe.id : note.id,
          key: `item-${i}`,
          title: `Item ${i}`,
          content: `Line ${i} of the ${MARKER} inventory: box ${i % 37}, shelf ${i % 11}.`,
          tags: [`shelf-${i % 11}`, ...(i % 2 ? ['odd'] : [])],
          summary: `Summary of item ${i}`,
        };
      });
      const { body } = await api().call(owner.token, 'POST', '/api/memory-fragments/bulk', {
        workspaceId: wsId,
        items,
      });
      expect(body.created, JSON.stringify(body).slice(0, 300)).toBe(500);
      ids.push(...body.results.map((r: any) => r.id));
    }
    const { collection } = await api().ok(
      owner.token,
      'POST',
      `/api/workspaces/${wsId}/collections`,
      { name: 'Fragile' },
      201,
    );
    await api().ok(
      owner.token,
      'POST',
      `/api/workspaces/${wsId}/collections/${collection.id}/fragments`,
      { fragmentIds: ids.slice(0, 25) },
      200,
    );
    await api().ok(owner.token, 'DELETE', `/api/memory-fragments/${ids[999]}`, undefined, 200);
    const before = await snapshot(client, wsId);
    expect(before.size).toBe(FRAGMENTS);

    // To the Leaf.
    const phases: MoveProgress['phase'][] = [];
    const toLeaf = await client.moveWorkspace(wsId, zoneId, { onProgress: (p) => phases.push(p.phase) });
    expect(toLeaf).toMatchObject({
      status: 'done',
      fromHostedZoneId: null,
      toHostedZoneId: zoneId,
      leftoverRemoved: true,
    });
    expect([...new Set(phases)]).toEqual(['preparing', 'exporting', 'importing', 'completing', 'removing', 'done']);
    const placed = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace;
    expect(placed).toMatchObject({ status: 'active', hostedZoneId: zoneId, endpointUrl: leafUrl });
    const refused = await api().call(owner.token, 'GET', `/api/memory-fragments?workspaceId=${wsId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('HOSTED_ZONE_REQUIRED');

    // Everything arrived, ids included.
    const onLeaf = await snapshot(client, wsId);
    expect(onLeaf).toEqual(before);
    const leafWs = client.workspace(wsId);
    expect((await leafWs.fragments.types()).map((t) => t.key)).toContain('recipe');
    // The content lives in the Leaf's database, and nowhere in the Cloud's.
    expect(await tablesHolding(cloudSql, MARKER)).toEqual([]);
    const { rows: leafRows } = await leafSql.query(
      'SELECT count(*)::int AS n FROM data.fragments WHERE workspace_id = $1 AND content LIKE $2',
      [wsId, `%${MARKER}%`],
    );
    expect(leafRows[0].n).toBe(FRAGMENTS);
    // A change made while it lives on the Leaf comes back with it.
    const leafNote = (await leafWs.fragments.types()).find((t) => t.key === note.key)!;
    const added = await leafWs.fragments.create({
      fragmentTypeId: leafNote.id,
      title: 'Added on the Leaf',
      content: `Written on the Leaf. ${MARKER}`,
    });
    await leafWs.fragments.update((await leafWs.fragments.list({ limit: 5 })).items[0]!.id, {
      tags: ['moved', 'edited'],
    });
    // Its summary and tags come from the Leaf's enrichment: the snapshot waits for them, else the
    // move carries what enrichment wrote after it was taken.
    await expect
      .poll(async () => (await leafWs.fragments.get(added.id)).status, { timeout: 60_000, interval: 200 })
      .toBe('published');
    const beforeReturn = await snapshot(client, wsId);
    expect(beforeReturn.size).toBe(FRAGMENTS + 1);
    expect(await tablesHolding(cloudSql, MARKER)).toEqual([]);

    // And back to the Cloud.
    const toCloud = await client.moveWorkspace(wsId, null);
    expect(toCloud).toMatchObject({
      status: 'done',
      fromHostedZoneId: zoneId,
      toHostedZoneId: null,
      leftoverRemoved: true,
    });
    const back = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace;
    expect(back).toMatchObject({ status: 'active', hostedZoneId: null, endpointUrl: null });
    const inCloud = await snapshot(client, wsId);
    expect(inCloud).toEqual(beforeReturn);
    expect(inCloud.get(added.title)?.content).toContain('Written on the Leaf');
    const { collections } = {
      collections: (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/collections`, undefined, 200)).items,
    };
    // Ids are kept (fragments above, collections here): links to them survive the round trip.
    expect(collections.map((c: any) => [c.id, c.name, c.fragmentCount])).toEqual([[collection.id, 'Fragile', 25]]);
    // The Leaf removed its copy (it reported so before leftoverRemoved turned true).
    expect(await tablesHolding(leafSql, MARKER)).toEqual([]);
    const provisioned = await leafSql.query(
      'SELECT count(*)::int AS n FROM data.leaf_workspaces WHERE workspace_id = $1',
      [wsId],
    );
    expect(provisioned.rows[0].n).toBe(0);
  }, 600_000);

  it('keeps a moving workspace read-only, refuses to leave files behind unasked, and an abort restores it', async () => {
    const wsId = (await api().createWorkspace(owner.token, { name: 'With a file' })).id;
    const types = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/fragment-types`, undefined, 200)).items;
    const fragment = (
      await api().ok(
        owner.token,
        'POST',
        '/api/memory-fragments',
        { workspaceId: wsId, fragmentTypeId: types[0].id, title: 'Has a file', content: 'See the attachment.' },
        201,
      )
    ).fragment;
    const form = new FormData();
    form.append('workspaceId', wsId);
    form.append('fragmentId', fragment.id);
    form.append('file', new Blob([Buffer.from('# Floor plan\n')], { type: 'text/markdown' }), 'floor-plan.md');
    const uploaded = await fetch(`${cloud.url}/api/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);

    const start = (body: unknown) => api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves`, body);
    const withFiles = await start({ hostedZoneId: zoneId });
    expect(withFiles.status).toBe(409);
    expect(withFiles.body).toMatchObject({ code: 'FILES_UNSUPPORTED_IN_HOSTED_ZONE', fileNames: ['floor-plan.md'] });
    expect((await start({ hostedZoneId: null })).status).toBe(409);
    expect((await start({ hostedZoneId: randomUUID() })).body.code).toBe('HOSTED_ZONE_NOT_FOUND');
    expect((await start({ hostedZoneId: 'nope' })).status).toBe(400);

    const started = await start({ hostedZoneId: zoneId, leaveFilesBehind: true });
    expect(started.status, started.text).toBe(201);
    const move = started.body.move;
    expect(move).toMatchObject({
      status: 'preparing',
      fromHostedZoneId: null,
      toHostedZoneId: zoneId,
      leaveFilesBehind: true,
    });
    expect((await start({ hostedZoneId: zoneId, leaveFilesBehind: true })).body).toMatchObject({
      code: 'CONFLICT',
      moveId: move.id,
    });
    // Read-only on the Cloud while it moves; reads and the export still work.
    const write = await api().call(owner.token, 'PATCH', `/api/memory-fragments/${fragment.id}`, {
      title: 'Changed',
    });
    expect(write.status).toBe(409);
    expect(write.body.code).toBe('WORKSPACE_MOVING');
    expect((await api().call(owner.token, 'GET', `/api/memory-fragments/${fragment.id}`)).status).toBe(200);
    const exported = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/exports`);
    expect(exported.status).toBe(202);
    expect((await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace.status).toBe(
      'moving',
    );
    expect((await api().call(owner.token, 'DELETE', `/api/workspaces/${wsId}`)).body.code).toBe('WORKSPACE_MOVING');

    // The Leaf provisions the target; then the move hands out a token for it.
    const copying = await poll('the move copying', async () => {
      const m = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/moves/${move.id}`, undefined, 200)).move;
      return m.status === 'copying' && m;
    });
    expect(copying.targetEndpointUrl).toBe(leafUrl);
    const handoffRes = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${move.id}/handoff`);
    expect(handoffRes.status).toBe(200);
    // It carries a bearer token: no cache may keep it.
    expect(handoffRes.headers.get('cache-control')).toBe('no-store');
    const handoff = handoffRes.body;
    expect(handoff).toMatchObject({ hostedZoneId: zoneId, endpointUrl: leafUrl, workspaceId: wsId });
    const atTarget = await fetch(`${leafUrl}/api/workspaces/${wsId}/fragment-types`, {
      headers: { authorization: `Bearer ${handoff.token}` },
    });
    expect(atTarget.status).toBe(200);
    // A Leaf target is not checked by the Cloud; an unfinished move cannot be completed twice over.
    expect(
      (await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${randomUUID()}/complete`, {})).status,
    ).toBe(404);

    const aborted = await api().ok(
      owner.token,
      'POST',
      `/api/workspaces/${wsId}/moves/${move.id}/abort`,
      undefined,
      200,
    );
    expect(aborted.move.status).toBe('aborted');
    expect((await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace).toMatchObject({
      status: 'active',
      hostedZoneId: null,
    });
    await api().ok(owner.token, 'PATCH', `/api/memory-fragments/${fragment.id}`, { title: 'Changed' }, 200);
    const files = await api().ok(owner.token, 'GET', `/api/files/search?workspaceId=${wsId}&q=floor`, undefined, 200);
    expect(files.items.map((h: any) => h.file.name)).toEqual(['floor-plan.md']);
    // The Leaf drops the target it provisioned.
    await poll('the aborted target removed', async () => {
      const m = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/moves/${move.id}`, undefined, 200)).move;
      return m.leftoverRemoved;
    });
    const gone = await fetch(`${leafUrl}/api/workspaces/${wsId}/fragment-types`, {
      headers: { authorization: `Bearer ${handoff.token}` },
    });
    expect(gone.status).toBe(401);
    expect(
      (await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${move.id}/complete`, {})).body,
    ).toMatchObject({ code: 'CONFLICT', moveStatus: 'aborted' });
  }, 120_000);

  it("keeps a workspace moving out of its Leaf read-only there, and the Cloud admits only the move's import", async () => {
    const wsId = (await api().createWorkspace(owner.token, { name: 'Leaving the Leaf', hostedZoneId: zoneId })).id;
    await poll('workspace active', async () => {
      const { workspace } = await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200);
      return workspace.status === 'active';
    });
    const atLeaf = async (method: string, path: string, body?: unknown) => {
      const handoff = await api().ok(owner.token, 'POST', `/api/workspaces/${wsId}/handoff`, undefined, 200);
      const res = await fetch(`${leafUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${handoff.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const types = (await atLeaf('GET', `/api/workspaces/${wsId}/fragment-types`)).body.items;
    const create = () =>
      atLeaf('POST', '/api/memory-fragments', {
        workspaceId: wsId,
        fragmentTypeId: types[0].id,
        title: 'On the Leaf',
        content: 'Leaf content.',
      });
    expect((await create()).status).toBe(201);

    const { move } = await api().ok(owner.token, 'POST', `/api/workspaces/${wsId}/moves`, { hostedZoneId: null }, 201);
    expect(move).toMatchObject({ status: 'preparing', fromHostedZoneId: zoneId, sourceEndpointUrl: leafUrl });
    // The Leaf confirms read-only with its next heartbeats; then the move copies.
    await poll('the move copying', async () => {
      const m = (await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}/moves/${move.id}`, undefined, 200)).move;
      return m.status === 'copying';
    });
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('WORKSPACE_MOVING');
    expect((await atLeaf('GET', `/api/memory-fragments?workspaceId=${wsId}`)).body.items).toHaveLength(1);
    // On the Cloud, ordinary routes still send the caller to the Leaf; the move's import route is admitted.
    const cloudRead = await api().call(owner.token, 'GET', `/api/memory-fragments?workspaceId=${wsId}`);
    expect(cloudRead.body.code).toBe('HOSTED_ZONE_REQUIRED');
    const notZip = await fetch(`${cloud.url}/api/workspaces/${wsId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/plain' },
      body: 'not an archive',
    });
    expect(notZip.status).toBe(415);
    // The Cloud target needs no handoff.
    const noHandoff = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${move.id}/handoff`);
    expect(noHandoff.status).toBe(409);
    // Completing a move to the Cloud needs its import there, done.
    const early = await api().call(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${move.id}/complete`, {
      importTransferId: randomUUID(),
    });
    expect(early.status).toBe(404);

    await api().ok(owner.token, 'POST', `/api/workspaces/${wsId}/moves/${move.id}/abort`, undefined, 200);
    await poll('the Leaf writable again', async () => (await create()).status === 201);
    expect((await api().ok(owner.token, 'GET', `/api/workspaces/${wsId}`, undefined, 200)).workspace).toMatchObject({
      status: 'active',
      hostedZoneId: zoneId,
    });
  }, 120_000);
});
