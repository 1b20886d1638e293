import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../../support/http.js';
import { startLeaf } from '../../support/hosted-zones.js';
import { startApp, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startFakeCloud, type FakeCloud } from './fake-cloud.js';

const ENROLLMENT_TOKEN = `kwe_${randomUUID().replaceAll('-', '')}`;
const MARKER = `leaf-marker-${randomUUID()}`;

/** Waits for a condition the Leaf reaches on its own (heartbeats, enrichment); no timing is asserted. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(leaf: PlatformProcess, token: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${leaf.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? undefined : await readJson(res) };
}

/**
 * A Leaf against a fake Cloud (plain node:http, the contract's Leaf-facing routes): it
 * enrolls, heartbeats, provisions a placement and reports it ready, serves the data-plane
 * routes to handoff tokens only, and keeps serving while the Cloud is down.
 */
describe('the Leaf', () => {
  const dataDir = tempDir('kw-leaf-');
  let cloud: FakeCloud;
  let leaf: PlatformProcess | undefined;
  let workspaceId: string;
  let token: string;
  let fragmentId: string;
  let noteTypeId: string;
  const userId = randomUUID();

  beforeAll(async () => {
    cloud = await startFakeCloud({ enrollmentToken: ENROLLMENT_TOKEN });
    workspaceId = cloud.place('Customer research');
    leaf = await startLeaf({
      CLOUD_URL: cloud.url,
      ENROLLMENT_TOKEN,
      PORT: '0',
      DATA_DIR: dataDir,
      LEAF_HEARTBEAT_SECONDS: '1',
    });
  }, 60_000);

  afterAll(async () => {
    await leaf?.stop();
    await cloud?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('enrolls, heartbeats, provisions the placement and reports it ready', async () => {
    expect(cloud.enrolled()).toMatchObject({
      leafVersion: expect.any(String),
      endpointUrl: expect.stringMatching(/^http/),
    });
    await until('the placement to become active', () => cloud.placementStatus(workspaceId) === 'active');
    expect(cloud.heartbeats()).toBeGreaterThan(0);
    const heartbeat = cloud.requests.find((r) => r.path === '/api/hosted-zones/heartbeat')!;
    expect(heartbeat.authorization).toMatch(/^Bearer kwz_/);
    const health = await readJson(await fetch(`${leaf!.url}/api/health`));
    expect(health.components.map((c: { component: string }) => c.component).sort()).toEqual([
      'fragments',
      'search',
      'webhooks',
    ]);
    // Its own database holds the data plane only.
    expect([...new Set(leaf!.logs.filter((l) => l.msg === 'migrations up to date').map((l) => l.plane))]).toEqual([
      'data',
    ]);
  });

  it('serves fragments created with a handoff token: readable, searchable, enriched', async () => {
    token = await cloud.handoff({ workspaceId, userId, role: 'contributor' });
    const types = await call(leaf!, token, 'GET', `/api/workspaces/${workspaceId}/fragment-types`);
    expect(types.status).toBe(200);
    noteTypeId = types.body.items.find((t: { key: string }) => t.key === 'note').id;

    const created = await call(leaf!, token, 'POST', '/api/memory-fragments', {
      workspaceId,
      fragmentTypeId: noteTypeId,
      title: `Interview ${MARKER}`,
      content: `The customer said ${MARKER} twice.`,
    });
    expect(created.status).toBe(201);
    expect(created.body.fragment.createdBy).toBe(userId);
    fragmentId = created.body.fragment.id;

    const read = await call(leaf!, token, 'GET', `/api/memory-fragments/${fragmentId}`);
    expect(read.status).toBe(200);
    expect(read.body.fragment.content).toContain(MARKER);

    const published = await until('enrichment to publish the fragment', async () => {
      const res = await call(leaf!, token, 'GET', `/api/memory-fragments/${fragmentId}`);
      return res.body.fragment.status === 'published' ? res.body.fragment : undefined;
    });
    expect(published.summary).toEqual(expect.any(String));

    const search = await call(
      leaf!,
      token,
      'GET',
      `/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(MARKER)}&mode=keyword`,
    );
    expect(search.status).toBe(200);
    expect(search.body.results.map((r: { fragmentId: string }) => r.fragmentId)).toEqual([fragmentId]);
  });

  it('limits a caller to the actions of the token, and refuses every other credential', async () => {
    const readOnly = await cloud.handoff({ workspaceId, userId, role: 'contributor', actions: ['fragments:read'] });
    expect((await call(leaf!, readOnly, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(200);
    const write = await call(leaf!, readOnly, 'POST', '/api/memory-fragments', {
      workspaceId,
      fragmentTypeId: noteTypeId,
      title: 'x',
      content: 'y',
    });
    expect(write.status).toBe(403);

    // A viewer's token carrying write actions is still limited by the role.
    const viewer = await cloud.handoff({ workspaceId, role: 'viewer', actions: ['fragments:read', 'fragments:write'] });
    expect(
      (
        await call(leaf!, viewer, 'POST', '/api/memory-fragments', {
          workspaceId,
          fragmentTypeId: noteTypeId,
          title: 'x',
          content: 'y',
        })
      ).status,
    ).toBe(403);

    const refusals = [
      ['no credential', undefined],
      ['a personal access token', `kwp_${'a'.repeat(40)}`],
      ['another zone', await cloud.handoff({ workspaceId, audience: `urn:kw:hosted-zone:${randomUUID()}` })],
      ['another issuer', await cloud.handoff({ workspaceId, issuer: 'https://other-cloud.example.com' })],
      ['a workspace not provisioned here', await cloud.handoff({ workspaceId: randomUUID() })],
      ['an expired token', await cloud.handoff({ workspaceId, ttlSeconds: -60 })],
      ['a bad signature', `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`],
    ] as const;
    for (const [name, bearer] of refusals) {
      const res = await call(leaf!, bearer, 'GET', `/api/memory-fragments/${fragmentId}`);
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status: 401, code: 'UNAUTHENTICATED' });
    }
    const session = await fetch(`${leaf!.url}/api/memory-fragments/${fragmentId}`, {
      headers: { cookie: 'kw_session=abc' },
    });
    expect(session.status).toBe(401);
  });

  it('serves no Cloud-only routes and no files', async () => {
    for (const path of [
      '/api/hosted-zones',
      '/api/tokens',
      '/api/profile',
      '/api/workspaces',
      `/api/workspaces/${workspaceId}/files`,
    ]) {
      const res = await call(leaf!, token, 'GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });

  it('keeps serving a still-valid token while the Cloud is down, also after a restart; a revoked one stays refused', async () => {
    // A revocation the Cloud answered before going down is kept across the restart (its database).
    const revokedUser = randomUUID();
    const revoked = await cloud.handoff({ workspaceId, userId: revokedUser, role: 'viewer' });
    expect((await call(leaf!, revoked, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(200);
    cloud.revoke({ userId: revokedUser });
    const refused = await until('the revocation to reach the Leaf', async () => {
      const res = await call(leaf!, revoked, 'GET', `/api/memory-fragments/${fragmentId}`);
      return res.status === 401 ? res : undefined;
    });
    expect(refused.body.error).toMatch(/revoked/);

    await cloud.stop();
    expect((await call(leaf!, token, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(200);
    await until('a failed heartbeat to be logged', () => leaf!.logs.some((l) => l.msg?.startsWith('heartbeat failed')));
    expect((await call(leaf!, token, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(200);

    // Restarted during the outage: the enrollment and the Cloud keys come from its database.
    expect(await leaf!.stop()).toBe(0);
    leaf = await startLeaf({
      CLOUD_URL: cloud.url,
      ENROLLMENT_TOKEN,
      PORT: '0',
      DATA_DIR: dataDir,
      LEAF_HEARTBEAT_SECONDS: '1',
    });
    const read = await call(leaf, token, 'GET', `/api/memory-fragments/${fragmentId}`);
    expect(read.status).toBe(200);
    expect(read.body.fragment.id).toBe(fragmentId);
    expect((await call(leaf, revoked, 'GET', `/api/memory-fragments/${fragmentId}`)).status).toBe(401);
  });

  it('never sent fragment content to the Cloud', () => {
    expect(cloud.requests.length).toBeGreaterThan(0);
    for (const request of cloud.requests) expect(`${request.path} ${request.body}`).not.toContain(MARKER);
    expect(
      cloud.requests
        .map((r) => r.path)
        .every((p) => p.startsWith('/api/hosted-zones/') || p === '/.well-known/jwks.json'),
    ).toBe(true);
  });
});

describe("the Leaf's start-up errors", () => {
  it('exits 2 with a clear message without CLOUD_URL, without an https PUBLIC_URL, or on a first start without ENROLLMENT_TOKEN', async () => {
    const httpsProblem = 'PUBLIC_URL: a Leaf must be reached over https, since clients send it their handoff tokens';
    const dataDirs: string[] = [];
    try {
      for (const [env, problem] of [
        [{}, 'CLOUD_URL: required by the Leaf'],
        // Without the development setting, plain http is refused, also the http://localhost default.
        [{ CLOUD_URL: 'http://127.0.0.1:9', PUBLIC_URL: 'http://leaf.example.test' }, httpsProblem],
        [{ CLOUD_URL: 'http://127.0.0.1:9' }, `${httpsProblem} (got http://localhost:0, the default)`],
        [
          { CLOUD_URL: 'http://127.0.0.1:9', HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS: 'true' },
          'ENROLLMENT_TOKEN: required on the first start',
        ],
      ] as const) {
        // A folder each: no case waits for the previous one's embedded database to let go of it.
        const dataDir = tempDir('kw-leaf-config-');
        dataDirs.push(dataDir);
        const started = startApp('leaf', { ...env, PORT: '0', DATA_DIR: dataDir });
        const err = await started.then(
          async (p) => {
            await p.stop();
            return new Error('the Leaf started');
          },
          (e: Error) => e,
        );
        expect(err.message).toMatch(/exited with 2 before ready/);
        expect(err.message).toContain(problem);
        // A setting the Leaf checks itself stops it before it makes anything: no database, no key.
        if (!problem.startsWith('ENROLLMENT_TOKEN')) expect(readdirSync(dataDir), problem).toEqual([]);
      }
    } finally {
      for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
