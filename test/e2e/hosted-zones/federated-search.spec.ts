import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KnowledgeClient } from '@kw/client';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { ALLOW_HTTP_ENDPOINTS, enrolledLeaf, poll } from '../../support/hosted-zones.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

const MARKER = `kettle-${randomUUID().slice(0, 8)}`;
const PORTABLE = `portable content ${randomUUID()}`;
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};
/**
 * Global search and hosted zones, with an embedded Cloud and a real Leaf: the Cloud's answer
 * names the hosted workspaces it did not search (and where they live), and the TypeScript
 * client's federated search asks each Leaf with a handoff token and merges the lists.
 */
describeWith(['postgres'], 'global search across the Cloud and a Leaf', () => {
  const admin = adminEnv();
  const dirs: string[] = [];
  let cloudDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let leafDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let cloud: PlatformProcess;
  let leaf: PlatformProcess | undefined;
  let leafUrl: string;
  let owner: { token: string };
  let cloudWs: string;
  let leafWs: string;
  const dir = () => {
    const d = tempDir('kw-federated-');
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    cloudDb = await createTestDatabase('kw_fed_cloud');
    leafDb = await createTestDatabase('kw_fed_leaf');
    // Both planes on plain http on loopback: the development setting that allows it.
    cloud = await startEmbedded(dir(), { DATABASE_URL: cloudDb.url, ...admin, ...UNLIMITED, ...ALLOW_HTTP_ENDPOINTS });
    owner = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    const api = workspacesApi(cloud.url);
    let zoneId: string;
    ({ leaf, leafUrl, zoneId } = await enrolledLeaf({
      cloudUrl: cloud.url,
      ownerToken: owner.token,
      databaseUrl: leafDb.url,
      dataDir: dir(),
      env: UNLIMITED,
    }));
    leafWs = (await api.createWorkspace(owner.token, { name: 'On the Leaf', hostedZoneId: zoneId })).id;
    await poll('workspace active', async () => {
      const { workspace } = await api.ok(owner.token, 'GET', `/api/workspaces/${leafWs}`, undefined, 200);
      return workspace.status === 'active';
    });
    cloudWs = (await api.createWorkspace(owner.token, { name: 'In the Cloud' })).id;
  }, 180_000);

  afterAll(async () => {
    await leaf?.stop();
    await cloud?.stop();
    await cloudDb?.drop();
    await leafDb?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('exports a Leaf workspace on its Leaf (handoff token) and imports the archive into a Cloud workspace', async () => {
    const api = workspacesApi(cloud.url);
    const handoff = await api.ok(owner.token, 'POST', `/api/workspaces/${leafWs}/handoff`, undefined, 200);
    expect(handoff.actions).toContain('workspaces:write');
    const atLeaf = async (method: string, path: string, body?: string, type?: string) => {
      const res = await fetch(`${leafUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${handoff.token}`, ...(type ? { 'content-type': type } : {}) },
        body,
      });
      return res;
    };
    const types = (await (await atLeaf('GET', `/api/workspaces/${leafWs}/fragment-types`)).json()) as any;
    const created = await atLeaf(
      'POST',
      '/api/memory-fragments',
      JSON.stringify({ workspaceId: leafWs, fragmentTypeId: types.items[0].id, title: 'Portable', content: PORTABLE }),
      'application/json',
    );
    expect(created.status).toBe(201);
    const started = (await (await atLeaf('POST', `/api/workspaces/${leafWs}/exports`)).json()) as any;
    const done = await poll('the Leaf export', async () => {
      const t = (
        (await (await atLeaf('GET', `/api/workspaces/${leafWs}/exports/${started.transfer.id}`)).json()) as any
      ).transfer;
      return t.status !== 'processing' && t;
    });
    expect(done).toMatchObject({ status: 'done', error: null });
    const archive = await (
      await atLeaf('GET', `/api/workspaces/${leafWs}/exports/${started.transfer.id}/download`)
    ).arrayBuffer();

    const copy = (await api.createWorkspace(owner.token, { name: 'Copy in the Cloud' })).id;
    const res = await fetch(`${cloud.url}/api/workspaces/${copy}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/zip' },
      body: Buffer.from(archive),
    });
    const imported = ((await res.json()) as any).transfer;
    const finished = await poll('the Cloud import', async () => {
      const t = (await api.ok(owner.token, 'GET', `/api/workspaces/${copy}/imports/${imported.id}`, undefined, 200))
        .transfer;
      return t.status !== 'processing' && t;
    });
    expect(finished.result.fragments).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const listed = await api.ok(owner.token, 'GET', `/api/memory-fragments?workspaceId=${copy}`, undefined, 200);
    expect(listed.items.map((f: any) => [f.title, f.content])).toEqual([['Portable', PORTABLE]]);
    // Only the copy's own workspace got it: the Leaf's stays on the Leaf.
    await api.ok(owner.token, 'DELETE', `/api/workspaces/${copy}`, undefined, 200);
  }, 90_000);

  it('names the hosted workspaces the Cloud skipped, and the client searches them on the Leaf', async () => {
    const client = new KnowledgeClient({ baseUrl: cloud.url, token: owner.token });
    for (const [workspaceId, where] of [
      [cloudWs, 'cloud'],
      [leafWs, 'leaf'],
    ] as const) {
      const ws = client.workspace(workspaceId);
      const type = (await ws.fragments.types())[0]!;
      await ws.fragments.create({
        fragmentTypeId: type.id,
        title: `Descaling the ${where} ${MARKER}`,
        content: `Descale the ${MARKER} with vinegar, ${where} copy.`,
      });
    }
    await poll('both indexed', async () => {
      const found = await client.workspace(leafWs).search(MARKER, { mode: 'keyword' });
      const cloudFound = await client.workspace(cloudWs).search(MARKER, { mode: 'keyword' });
      return found.results.length > 0 && cloudFound.results.length > 0;
    });

    const global = await client.globalSearch(MARKER, { mode: 'keyword' });
    expect(global.results.map((r) => r.workspaceId)).toEqual([cloudWs]);
    expect(global.skippedWorkspaces).toEqual([
      {
        workspaceId: leafWs,
        name: 'On the Leaf',
        hostedZoneId: expect.any(String),
        endpointUrl: leafUrl,
        reason: 'hosted_zone',
      },
    ]);
    // The Cloud's MCP search tool without a workspace names them the same way.
    const mcp = await connectMcp(cloud.url, owner.token);
    try {
      const tool = await call(mcp, 'search', { query: MARKER, mode: 'keyword' });
      expect(tool.isError).toBe(false);
      expect(tool.data.hits.map((h: { workspaceId: string }) => h.workspaceId)).toEqual([cloudWs]);
      expect(tool.data.workspaceCount).toBe(1);
      expect(tool.data.skippedWorkspaces).toEqual(global.skippedWorkspaces);
    } finally {
      await mcp.close();
    }

    const everywhere = await client.searchEverywhere(MARKER, { mode: 'keyword' });
    expect(everywhere.results.map((r) => r.workspaceId).sort()).toEqual([cloudWs, leafWs].sort());
    expect(everywhere.cloud).toEqual({ workspaceCount: 1, total: 1 });
    expect(everywhere.leaves).toEqual([{ workspaceId: leafWs, endpointUrl: leafUrl, total: 1 }]);

    // A Leaf that cannot be reached is reported, and the Cloud's results still come back.
    await leaf!.stop();
    leaf = undefined;
    const fresh = new KnowledgeClient({ baseUrl: cloud.url, token: owner.token });
    const partial = await fresh.searchEverywhere(MARKER, { mode: 'keyword' });
    expect(partial.results.map((r) => r.workspaceId)).toEqual([cloudWs]);
    expect(partial.leaves).toEqual([
      { workspaceId: leafWs, endpointUrl: leafUrl, total: 0, error: expect.any(String) },
    ]);
  }, 90_000);
});
