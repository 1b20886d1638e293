import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KnowledgeClient } from '@kw/client';
import { SecretBox, parseKey } from '@kw/platform-secret-box';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { ALLOW_HTTP_ENDPOINTS, freePort, poll, startLeaf } from '../../support/hosted-zones.js';
import { createTestDatabase, tablesHolding } from '../../support/postgres.js';
import { tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { call, connectMcp } from '../mcp/mcp-fixture.js';

/**
 * Two real planes on this machine: the Cloud in the distributed mode on its own database and
 * a Leaf as a separate process on another database. The only things they share are HTTP.
 */
const CLOUD_KEY = 'b'.repeat(64);
const LEAF_KEY = 'c'.repeat(64);
const TTL_SECONDS = 8;
const MARKER = `leaf-only-marker-${randomUUID()}`;
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};

describeWith(['postgres', 'nats'], 'hosted zones: a Cloud and a Leaf, two real planes', () => {
  let cloudDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let leafDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let cloud: DistributedPlatform;
  let leaf: PlatformProcess;
  let leafUrl: string;
  let cloudSql: pg.Client;
  let leafSql: pg.Client;
  let owner: { token: string; id: string };
  let viewer: { token: string; id: string; email: string };
  let zoneId: string;
  let workspaceId: string;
  let fragmentId: string;
  const admin = adminEnv();
  const api = () => workspacesApi(cloud.url);

  beforeAll(async () => {
    cloudDb = await createTestDatabase('kw_cloud');
    leafDb = await createTestDatabase('kw_leaf');
    cloud = await startDistributed({
      DATABASE_URL: cloudDb.url,
      NATS_URL: TEST_NATS_URL!,
      ...admin,
      ...UNLIMITED,
      SECRETS_ENCRYPTION_KEY: CLOUD_KEY,
      HANDOFF_TOKEN_TTL_SECONDS: String(TTL_SECONDS),
      HOSTED_ZONE_OFFLINE_AFTER_SECONDS: '10',
      // The Leaf of this machine is plain http.
      ...ALLOW_HTTP_ENDPOINTS,
      LOG_LEVEL: 'debug',
    });
    cloudSql = new pg.Client({ connectionString: cloudDb.url });
    await cloudSql.connect();
    leafSql = new pg.Client({ connectionString: leafDb.url });
    await leafSql.connect();
    const o = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    owner = { token: o.token, id: o.user.id };
    const v = await userWithToken(cloud.url, admin.ADMIN_TOKEN);
    viewer = { token: v.token, id: v.user.id, email: v.user.email };
  }, 180_000);

  afterAll(async () => {
    await leaf?.stop();
    await cloudSql?.end();
    await leafSql?.end();
    if (cloud) await cloud.stop();
    await cloudDb?.drop();
    await leafDb?.drop();
  }, 60_000);

  it('creates a zone, enrolls a Leaf, places a workspace through the Cloud and sees it become active', async () => {
    const created = await api().ok(
      owner.token,
      'POST',
      '/api/hosted-zones',
      { name: 'Acme on-prem', region: 'eu-west' },
      201,
    );
    zoneId = created.hostedZone.id;
    expect(created.hostedZone.status).toBe('pending');
    expect(created.enrollmentToken).toMatch(/^kwe_/);

    const port = await freePort();
    leafUrl = `http://127.0.0.1:${port}`;
    leaf = await startLeaf({
      PORT: String(port),
      PUBLIC_URL: leafUrl,
      DATABASE_URL: leafDb.url,
      DATA_DIR: tempDir('kw-leaf-'),
      CLOUD_URL: cloud.url,
      ENROLLMENT_TOKEN: created.enrollmentToken,
      SECRETS_ENCRYPTION_KEY: LEAF_KEY,
      LEAF_HEARTBEAT_SECONDS: '1',
      ...UNLIMITED,
    });
    const online = await poll('zone online', async () => {
      const { hostedZone } = await api().ok(owner.token, 'GET', `/api/hosted-zones/${zoneId}`, undefined, 200);
      return hostedZone.status === 'online' && hostedZone;
    });
    expect(online.endpointUrl).toBe(leafUrl);

    const { workspace } = await api().ok(
      owner.token,
      'POST',
      '/api/workspaces',
      { name: 'On the Leaf', hostedZoneId: zoneId },
      201,
    );
    workspaceId = workspace.id;
    expect(workspace).toMatchObject({ status: 'processing', hostedZoneId: zoneId, endpointUrl: leafUrl });
    const active = await poll('workspace active', async () => {
      const { workspace: w } = await api().ok(owner.token, 'GET', `/api/workspaces/${workspaceId}`, undefined, 200);
      return w.status === 'active' && w;
    });
    expect(active.hostedZoneId).toBe(zoneId);
    await api().addMember(
      owner.token,
      workspaceId,
      { auth: viewer.token, email: viewer.email, id: viewer.id },
      'viewer',
    );
  }, 90_000);

  it('answers every Cloud data-plane route for that workspace with 409 HOSTED_ZONE_REQUIRED, before touching the payload', async () => {
    const expected = {
      code: 'HOSTED_ZONE_REQUIRED',
      error: 'HOSTED_ZONE_REQUIRED',
      hostedZoneId: zoneId,
      endpointUrl: leafUrl,
    };
    const ws = workspaceId;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/memory-fragments?workspaceId=${ws}`],
      [
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws, fragmentTypeId: randomUUID(), title: MARKER, content: MARKER },
      ],
      ['POST', '/api/memory-fragments/check-limits', { workspaceId: ws }],
      ['GET', `/api/workspaces/${ws}/fragment-types`],
      ['POST', `/api/workspaces/${ws}/fragment-types`, { key: 'hz', name: 'HZ' }],
      ['GET', `/api/workspaces/${ws}/collections`],
      ['POST', `/api/workspaces/${ws}/collections`, { name: 'c' }],
      ['POST', `/api/workspaces/${ws}/fragment-collections`, { fragmentIds: [randomUUID()] }],
      ['GET', `/api/search?workspaceId=${ws}&q=anything`],
      ['GET', `/api/search/simple?workspaceId=${ws}&q=anything`],
      ['GET', `/api/search/suggestions?workspaceId=${ws}&prefix=an`],
      ['POST', '/api/search/saved', { workspaceId: ws, name: 's', q: 'anything' }],
      ['POST', '/api/fragments/list', { workspaceId: ws, filter: "title ~ 'x'" }],
      ['POST', '/api/fragments/agentic-search', { workspaceId: ws, query: 'anything' }],
      ['GET', `/api/graph/stats?workspaceId=${ws}`],
      ['GET', `/api/graph/entities?workspaceId=${ws}&q=a`],
      ['POST', '/api/graph/retrieve', { workspaceId: ws, query: 'anything' }],
      ['GET', `/api/workspaces/${ws}/webhooks`],
      [
        'POST',
        `/api/workspaces/${ws}/webhooks`,
        { name: 'w', url: 'https://93.184.216.34/in', events: ['fragment.created'] },
      ],
      ['POST', `/api/workspaces/${ws}/webhooks/trigger`, { eventType: 'fragment.created' }],
    ];
    for (const [method, path, body] of routes) {
      const res = await api().call(owner.token, method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(409);
      expect(res.body, `${method} ${path}`).toEqual(expected);
    }
  });

  it('through the client: creates, reads, updates, lists, searches and archives on the Leaf; enrichment completes there', async () => {
    const client = new KnowledgeClient({ baseUrl: cloud.url, token: owner.token });
    const ws = client.workspace(workspaceId);
    const note = (await ws.fragments.types()).find((t) => t.key === 'note')!;
    const created = await ws.fragments.create({
      fragmentTypeId: note.id,
      title: 'Leaf runbook',
      content: `Restart the leaf ingest worker. ${MARKER}`,
      tags: ['ops'],
    });
    fragmentId = created.id;
    expect(created.status).toBe('processing');
    const published = await poll('enrichment on the Leaf', async () => {
      const f = await ws.fragments.get(fragmentId);
      return f.status === 'published' && f;
    });
    expect((published.enrichment as any).embedding.state).toBe('done');
    const updated = await ws.fragments.update(fragmentId, { title: 'Leaf runbook (v2)', version: published.version });
    expect(updated.version).toBe(published.version + 1);
    const page = await ws.fragments.list();
    expect(page.items.map((f) => f.id)).toContain(fragmentId);
    const found = await poll('search on the Leaf', async () => {
      const r = await ws.search('leaf ingest worker');
      return r.results.some((h) => h.fragmentId === fragmentId) && r;
    });
    expect(found.results[0]!.fragmentId).toBe(fragmentId);
    const second = await ws.fragments.create({ fragmentTypeId: note.id, title: 'To archive', content: 'Short-lived.' });
    const archived = await ws.fragments.archive(second.id);
    expect(archived.archivedAt).not.toBeNull();

    // The content is on the Leaf's database.
    const { rows } = await leafSql.query('SELECT count(*)::int AS n FROM data.fragments WHERE content LIKE $1', [
      `%${MARKER}%`,
    ]);
    expect(rows[0].n).toBe(1);
  }, 90_000);

  it('leaves no trace of the content in any Cloud table or Cloud log', async () => {
    expect(await tablesHolding(cloudSql, MARKER)).toEqual([]);
    expect(JSON.stringify(cloud.logs)).not.toContain(MARKER);
    expect(JSON.stringify(leaf.logs)).not.toContain('Restart the leaf ingest worker');
  });

  it('refuses tokens for another zone, another workspace, expired, badly signed, or claiming more than the role allows', async () => {
    const { handoff, sign } = await handoffTools();
    const call = (token: string, method = 'GET', path = `/api/memory-fragments/${fragmentId}`, body?: unknown) =>
      fetch(`${leafUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    expect((await call(handoff.token)).status).toBe(200);
    const claims = { kw_ws: workspaceId, kw_role: 'owner', kw_actions: handoff.actions };
    expect((await call(await sign({ ...claims }, { audience: 'urn:kw:hosted-zone:' + randomUUID() }))).status).toBe(
      401,
    );
    expect((await call(await sign({ ...claims, kw_ws: randomUUID() }))).status).toBe(401);
    expect((await call(await sign({ ...claims }, { expiresAt: Math.floor(Date.now() / 1000) - 60 }))).status).toBe(401);
    const tampered = handoff.token.slice(0, -4) + (handoff.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await call(tampered)).status).toBe(401);
    // A viewer's token that claims write actions: the Leaf's policy still decides by the role.
    const viewerOverreach = await sign(
      { kw_ws: workspaceId, kw_role: 'viewer', kw_actions: ['fragments:read', 'fragments:write', 'fragments:delete'] },
      { subject: viewer.id },
    );
    const write = await call(viewerOverreach, 'PATCH', `/api/memory-fragments/${fragmentId}`, {
      title: 'viewer wrote this',
    });
    expect(write.status).toBe(403);

    // And the Cloud never hands a viewer more than reading.
    const viewerHandoff = await api().ok(
      viewer.token,
      'POST',
      `/api/workspaces/${workspaceId}/handoff`,
      undefined,
      200,
    );
    expect(viewerHandoff.actions).not.toContain('fragments:write');
    expect(
      (await call(viewerHandoff.token, 'PATCH', `/api/memory-fragments/${fragmentId}`, { title: 'nope' })).status,
    ).toBe(403);
  });

  it('serves the MCP endpoint for its workspaces with handoff tokens', async () => {
    const handoff = await api().ok(owner.token, 'POST', `/api/workspaces/${workspaceId}/handoff`, undefined, 200);
    const client = await connectMcp(leafUrl, handoff.token);
    try {
      const got = await call(client, 'get_fragment', { fragmentId });
      expect(got.isError, got.text).toBe(false);
      expect(got.data.fragment.content).toContain(MARKER);
      const found = await call(client, 'search', { workspaceId, query: 'leaf ingest worker' });
      expect(found.data.hits.map((h: any) => h.fragmentId)).toContain(fragmentId);
      // Without a workspace: every workspace the token opens (the handoff's one), as on the Cloud.
      const everywhere = await call(client, 'search', { query: 'leaf ingest worker' });
      expect(everywhere.isError, everywhere.text).toBe(false);
      expect(everywhere.data.hits.map((h: any) => h.fragmentId)).toContain(fragmentId);
      // The Leaf offers the tools its components answer: no files (not part of Hosted Zone V1),
      // no accounts or workspace list (the Cloud's), no chat management.
      const offered = (await client.listTools()).tools.map((t) => t.name);
      expect(offered).toEqual(
        expect.arrayContaining(['search', 'get_fragment', 'create_fragment', 'list_collections']),
      );
      for (const cloudOnly of [
        'search_workspace_files',
        'read_workspace_file',
        'list_workspaces',
        'whoami',
        'create_expert',
      ])
        expect(offered).not.toContain(cloudOnly);
      const described = await fetch(`${leafUrl}/api/mcp`, {
        headers: { accept: 'application/json', authorization: `Bearer ${handoff.token}` },
      });
      expect(described.status).toBe(200);
      expect(((await described.json()) as { tools: string[] }).tools.sort()).toEqual([...offered].sort());
      // Signing in: a Leaf is no OAuth authorization server; its 401 says where handoff tokens come from.
      const anonymous = await fetch(`${leafUrl}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="kw"');
      const refusal = (await anonymous.json()) as { code: string; error: string };
      expect(refusal.code).toBe('UNAUTHENTICATED');
      expect(refusal.error).toContain(`POST ${cloud.url}/api/workspaces/{id}/handoff`);
      for (const discovery of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/api/mcp',
        '/.well-known/oauth-authorization-server',
      ])
        expect((await fetch(`${leafUrl}${discovery}`)).status, discovery).toBe(404);
      const authentication = (
        (await (await fetch(`${leafUrl}/api/mcp`, { headers: { accept: 'application/json' } })).json()) as any
      ).authentication;
      expect(authentication).toEqual({
        type: 'bearer',
        credentials: ['handoff token, issued by the Cloud'],
        handoff: `POST ${cloud.url}/api/workspaces/{id}/handoff`,
      });
      // An unknown id is pointed at the tools the Leaf offers.
      const missing = await call(client, 'get_fragment', { fragmentId: '00000000-0000-4000-8000-000000000000' });
      expect(missing.isError).toBe(true);
      expect(missing.text).toMatch(/^NOT_FOUND/);
      expect(missing.text).not.toContain('list_workspaces');
      const files = await call(client, 'search_workspace_files', { workspaceId, query: 'leaf' });
      expect(files.isError).toBe(true);
      expect(files.text).toMatch(/not found/i);
      // The Cloud's MCP endpoint answers the same tool with the way to the Leaf.
      const cloudClient = await connectMcp(cloud.url, owner.token);
      const bounced = await call(cloudClient, 'list_fragments', { workspaceId });
      const cloudFiles = await call(cloudClient, 'search_workspace_files', { workspaceId, query: 'leaf' });
      await cloudClient.close();
      expect(bounced.isError).toBe(true);
      expect(bounced.text).toContain('HOSTED_ZONE_REQUIRED');
      expect(bounced.text).toContain(leafUrl);
      // The Cloud's files say that the zone keeps no files (there is nowhere to go).
      expect(cloudFiles.isError).toBe(true);
      expect(cloudFiles.text).toContain('FILES_UNSUPPORTED_IN_HOSTED_ZONE');
    } finally {
      await client.close();
    }
  });

  it("keeps a Leaf MCP session across the user's renewed handoff tokens, and caps the user's sessions at 50 whatever token opened them", async () => {
    const handoff = async (token: string) =>
      (await api().ok(token, 'POST', `/api/workspaces/${workspaceId}/handoff`, undefined, 200)).token as string;
    const post = async (token: string, body: unknown, sessionId?: string) => {
      const res = await fetch(`${leafUrl}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }),
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const data = text.match(/^data: (.*)$/m)?.[1] ?? text;
      return { status: res.status, sessionId: res.headers.get('mcp-session-id'), json: data ? JSON.parse(data) : {} };
    };
    const initialize = (token: string) =>
      post(token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
    const listTools = (token: string, sessionId: string) =>
      post(token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId);
    const close = (token: string, sessionId: string) =>
      fetch(`${leafUrl}/api/mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
      });

    // A session opened with one handoff token goes on with the same user's next one.
    const first = await initialize(await handoff(viewer.token));
    expect(first.status).toBe(200);
    const renewed = await handoff(viewer.token);
    const continued = await listTools(renewed, first.sessionId!);
    expect(continued.status).toBe(200);
    expect(continued.json.result.tools.map((t: { name: string }) => t.name)).toContain('search');
    // Another user's token does not reach it.
    expect((await listTools(await handoff(owner.token), first.sessionId!)).status).toBe(404);

    // The cap counts the user's sessions, not each token's: a fresh token per session gets no more than 50.
    const opened = [first.sessionId!];
    let refused: Awaited<ReturnType<typeof initialize>> | undefined;
    for (let i = 0; i < 60 && !refused; i++) {
      const res = await initialize(await handoff(viewer.token));
      if (res.status === 200) opened.push(res.sessionId!);
      else refused = res;
    }
    try {
      expect(refused?.status).toBe(503);
      expect(opened.length).toBe(50);
      expect(refused!.json.error.message).toMatch(/Too many open MCP sessions/);
      // Another user is not affected, and closing one makes room again.
      const other = await initialize(await handoff(owner.token));
      expect(other.status).toBe(200);
      await close(await handoff(owner.token), other.sessionId!);
    } finally {
      const token = await handoff(viewer.token);
      for (const id of opened) await close(token, id);
    }
    expect((await initialize(await handoff(viewer.token))).status).toBe(200);
  }, 120_000);

  it('keeps serving with a token issued before the Cloud stopped, and refuses it once expired', async () => {
    const handoff = await api().ok(owner.token, 'POST', `/api/workspaces/${workspaceId}/handoff`, undefined, 200);
    expect(await cloud.stop()).toBe(0);
    const read = () =>
      fetch(`${leafUrl}/api/memory-fragments/${fragmentId}`, { headers: { authorization: `Bearer ${handoff.token}` } });
    expect((await read()).status).toBe(200);
    const waitMs = Date.parse(handoff.expiresAt) - Date.now() + 6_000; // past exp and the 5 s clock tolerance
    await new Promise((r) => setTimeout(r, Math.max(0, waitMs)));
    expect((await read()).status).toBe(401);
    cloud = undefined as never;
  }, 60_000);

  /** The Cloud's current signing key, opened with the Cloud's key (tests only), to sign tokens a real issuer could. */
  async function handoffTools() {
    const handoff = await api().ok(owner.token, 'POST', `/api/workspaces/${workspaceId}/handoff`, undefined, 200);
    const { rows } = await cloudSql.query(
      'SELECT kid, private_jwk_sealed FROM control.handoff_signing_keys ORDER BY created_at DESC LIMIT 1',
    );
    const jwk = JSON.parse(new SecretBox([parseKey(CLOUD_KEY)]).open(rows[0].private_jwk_sealed)) as JWK;
    const key = await importJWK(jwk, 'ES256');
    const header = JSON.parse(Buffer.from(handoff.token.split('.')[0], 'base64url').toString());
    const payload = JSON.parse(Buffer.from(handoff.token.split('.')[1], 'base64url').toString());
    const sign = (
      claims: Record<string, unknown>,
      o: { audience?: string; expiresAt?: number; subject?: string } = {},
    ) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: rows[0].kid, typ: header.typ ?? 'JWT' })
        .setIssuer(payload.iss)
        .setAudience(o.audience ?? payload.aud)
        .setSubject(o.subject ?? payload.sub)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(o.expiresAt ?? Math.floor(Date.now() / 1000) + 120)
        .sign(key);
    return { handoff, sign };
  }
});
