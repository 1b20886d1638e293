import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, userWithToken, type TestUser } from '../../support/accounts.js';
import { FRAGMENT_ROUTES, LISTING_ROUTES, SEARCH_ROUTES, WEBHOOK_ROUTES } from '../../support/authz/routes.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { UNKNOWN_ID, WORKSPACE_NOT_FOUND, workspacesApi } from '../workspaces/workspaces-api.js';

/**
 * The Cloud side of hosted zones over real HTTP (embedded platform): zone management and
 * ownership, a Leaf played by a raw HTTP client (enrollment, heartbeats, placement reports),
 * placement, the HOSTED_ZONE_REQUIRED boundary of every Cloud data-plane route, token handoff
 * and the JWKS. The handoff route is not in the authorization matrix (it needs a Leaf-backed
 * workspace): its 401/403/404/409 cases are here. The two-plane flow with a real Leaf is in
 * the lead's specs of this folder.
 */
// No Leaf answers there: the Cloud never calls a Leaf, it hands the endpoint out (https, as placement requires).
const LEAF_ENDPOINT = 'https://127.0.0.1:9/leaf';
const OFFLINE_AFTER_SECONDS = 5;
const ALL_HANDOFF_ACTIONS = [
  'workspaces:write',
  'fragments:read',
  'fragments:write',
  'fragments:delete',
  'collections:read',
  'collections:write',
  'search:read',
  'webhooks:manage',
];

describe('hosted zones (Cloud)', () => {
  const dataDir = tempDir('kw-zones-cloud-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let api: ReturnType<typeof workspacesApi>;
  let owner: { user: TestUser; token: string };
  let stranger: { user: TestUser; token: string };
  let viewer: { user: TestUser; token: string };

  /** The Leaf's side: raw requests with its own credentials, no user token. */
  async function leaf(method: string, path: string, credential: string | undefined, body?: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (credential) headers.authorization = `Bearer ${credential}`;
    const res = await fetch(`${platform.url}${path}`, { method, headers, body: JSON.stringify(body ?? {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text, headers: res.headers };
  }

  /** An answer that carries a secret (docs/authentication.md): no cache may keep it. */
  function expectNoStore(headers: Headers, what: string): void {
    expect(headers.get('cache-control'), what).toBe('no-store');
    expect(headers.get('pragma'), what).toBe('no-cache');
  }

  async function readJwks(): Promise<JSONWebKeySet> {
    return (await (await fetch(`${platform.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  }

  async function newZone(token: string, name = `zone ${Math.random().toString(36).slice(2)}`) {
    return api.ok(token, 'POST', '/api/hosted-zones', { name, region: 'eu-test' }, 201);
  }

  async function enroll(enrollmentToken: string, endpointUrl = LEAF_ENDPOINT) {
    const res = await leaf('POST', '/api/hosted-zones/enroll', undefined, {
      enrollmentToken,
      endpointUrl,
      leafVersion: 'leaf-test-1',
    });
    if (res.status !== 200) throw new Error(`enroll: ${res.status} ${res.text}`);
    expectNoStore(res.headers, 'POST /api/hosted-zones/enroll (zone credential)');
    return res.body;
  }

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      HOSTED_ZONE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS),
      HANDOFF_TOKEN_TTL_SECONDS: '120',
    });
    api = workspacesApi(platform.url);
    [owner, stranger, viewer] = await Promise.all([0, 1, 2].map(() => userWithToken(platform.url, admin.ADMIN_TOKEN)));
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('management', () => {
    it('creates a pending zone with a one-time enrollment token, owned by the caller', async () => {
      const res = await api.call(owner.token, 'POST', '/api/hosted-zones', { name: 'Frankfurt', region: 'eu-central' });
      expect(res.status).toBe(201);
      expectNoStore(res.headers, 'POST /api/hosted-zones (enrollment token)');
      expect(res.body).toEqual({
        success: true,
        hostedZone: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'Frankfurt',
          region: 'eu-central',
          endpointUrl: null,
          status: 'pending',
          ownerId: owner.user.id,
          enrolledAt: null,
          lastHeartbeatAt: null,
          leafVersion: null,
          workspaceCount: 0,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
        enrollmentToken: expect.stringMatching(/^kwe_[A-Za-z0-9_-]{40,}$/),
        enrollmentTokenExpiresAt: expect.any(String),
      });
      expect(Date.parse(res.body.enrollmentTokenExpiresAt)).toBeGreaterThan(Date.now());
    });

    it.each([
      ['no region', { name: 'a' }],
      ['a blank name', { name: '  ', region: 'x' }],
      ['an endpoint that is not a URL', { name: 'a', region: 'x', endpointUrl: 'leaf.local' }],
      ['an ftp endpoint', { name: 'a', region: 'x', endpointUrl: 'ftp://leaf.example.test' }],
      ['an unknown field', { name: 'a', region: 'x', ownerId: UNKNOWN_ID }],
    ])('refuses %s with 400', async (_what, body) => {
      const res = await api.call(owner.token, 'POST', '/api/hosted-zones', body);
      expect(res.status).toBe(400);
    });

    it('refuses every bad endpointUrl alike, as VALIDATION_FAILED naming the field', async () => {
      const { hostedZone: zone } = await newZone(owner.token, 'Endpoints');
      for (const endpointUrl of [
        'ftp://leaf.example.test',
        'https://u:p@leaf.example.test/',
        'https://leaf.example.test/?a=1',
        'https://leaf.example.test/#f',
      ]) {
        const res = await api.call(owner.token, 'PATCH', `/api/hosted-zones/${zone.id}`, { endpointUrl });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          code: 'VALIDATION_FAILED',
          fields: [expect.objectContaining({ field: 'endpointUrl' })],
        });
      }
    });

    it("lists, reads, updates and deletes the caller's zones; another user's zone answers 404 everywhere", async () => {
      const { hostedZone: zone } = await newZone(owner.token, 'Mine');
      const mine = await api.ok(owner.token, 'GET', '/api/hosted-zones', undefined, 200);
      expect(mine.success).toBe(true);
      expect(mine.count).toBe(mine.items.length);
      expect(mine.items.map((z: any) => z.id)).toContain(zone.id);
      const theirs = await api.ok(stranger.token, 'GET', '/api/hosted-zones', undefined, 200);
      expect(theirs.items.map((z: any) => z.id)).not.toContain(zone.id);

      expect((await api.ok(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined, 200)).hostedZone).toEqual(
        zone,
      );
      for (const [method, path, body] of [
        ['GET', `/api/hosted-zones/${zone.id}`, undefined],
        ['PATCH', `/api/hosted-zones/${zone.id}`, { name: 'stolen' }],
        ['POST', `/api/hosted-zones/${zone.id}/enrollment-token`, undefined],
        ['DELETE', `/api/hosted-zones/${zone.id}`, undefined],
      ] as const) {
        const res = await api.call(stranger.token, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ error: 'Hosted zone not found', code: 'NOT_FOUND' });
      }
      expect((await api.call(owner.token, 'GET', '/api/hosted-zones/not-a-uuid', undefined)).status).toBe(404);
      expect((await api.call(owner.token, 'GET', `/api/hosted-zones/${UNKNOWN_ID}`, undefined)).status).toBe(404);

      const updated = await api.ok(
        owner.token,
        'PATCH',
        `/api/hosted-zones/${zone.id}`,
        { name: 'Renamed', endpointUrl: 'https://leaf.example.test/' },
        200,
      );
      expect(updated.hostedZone).toMatchObject({
        id: zone.id,
        name: 'Renamed',
        region: 'eu-test',
        endpointUrl: 'https://leaf.example.test',
      });
      const cleared = await api.ok(owner.token, 'PATCH', `/api/hosted-zones/${zone.id}`, { endpointUrl: null }, 200);
      expect(cleared.hostedZone.endpointUrl).toBeNull();

      expect(await api.ok(owner.token, 'DELETE', `/api/hosted-zones/${zone.id}`, undefined, 200)).toEqual({
        success: true,
        deletedWorkspaceIds: [],
      });
      expect((await api.call(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined)).status).toBe(404);
    });

    it("lets a platform administrator see and manage every user's zones", async () => {
      const { hostedZone: zone } = await newZone(owner.token, 'Watched');
      const all = await api.ok(admin.ADMIN_TOKEN, 'GET', '/api/hosted-zones', undefined, 200);
      expect(all.items.map((z: any) => z.id)).toContain(zone.id);
      const renamed = await api.ok(
        admin.ADMIN_TOKEN,
        'PATCH',
        `/api/hosted-zones/${zone.id}`,
        { region: 'moved' },
        200,
      );
      expect(renamed.hostedZone).toMatchObject({ id: zone.id, ownerId: owner.user.id, region: 'moved' });
    });

    it('needs the hosted-zones:manage scope (403) and a credential (401)', async () => {
      const narrow = await createToken(platform.url, owner.token, { scopes: ['workspaces:read'] });
      const res = await api.call(narrow.token, 'GET', '/api/hosted-zones', undefined);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect((await api.call(undefined, 'GET', '/api/hosted-zones', undefined)).status).toBe(401);
    });

    it('refuses every zone route to a credential restricted to a list of workspaces (403, as creating a workspace)', async () => {
      const { hostedZone: zone } = await newZone(owner.token, 'Not for a restricted token');
      const workspace = await api.createWorkspace(owner.token);
      const restricted = await createToken(platform.url, owner.token, { scopes: ['*'], workspaceIds: [workspace.id] });
      // The refusal workspace creation gives the same token: account-level, beyond its list.
      const create = await api.call(restricted.token, 'POST', '/api/workspaces', { name: 'outside' });
      expect(create.status).toBe(403);
      expect(create.body).toEqual({
        code: 'FORBIDDEN',
        error:
          'This credential is restricted to a list of workspaces, so it cannot create one; use a credential for all of your workspaces',
      });
      const refused = {
        code: 'FORBIDDEN',
        error:
          'This credential is restricted to a list of workspaces, so it cannot manage hosted zones; use a credential for all of your workspaces',
      };
      for (const [method, path, body] of [
        ['GET', '/api/hosted-zones', undefined],
        ['POST', '/api/hosted-zones', { name: 'rogue', region: 'x' }],
        ['GET', `/api/hosted-zones/${zone.id}`, undefined],
        ['PATCH', `/api/hosted-zones/${zone.id}`, { name: 'stolen', endpointUrl: 'https://rogue.example.test' }],
        ['POST', `/api/hosted-zones/${zone.id}/enrollment-token`, undefined],
        ['DELETE', `/api/hosted-zones/${zone.id}`, undefined],
        ['GET', `/api/hosted-zones/${UNKNOWN_ID}`, undefined],
      ] as const) {
        const res = await api.call(restricted.token, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body, `${method} ${path}`).toEqual(refused);
      }
      // Nothing changed, nothing was made.
      expect((await api.ok(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined, 200)).hostedZone).toEqual(
        zone,
      );
      const names = (await api.ok(owner.token, 'GET', '/api/hosted-zones', undefined, 200)).items.map(
        (z: any) => z.name,
      );
      expect(names).not.toContain('rogue');
    });
  });

  describe('a Leaf, placement and handoff', () => {
    let zone: any;
    let enrollment: any;
    let placed: any;
    let cloudWorkspace: any;

    beforeAll(async () => {
      const created = await newZone(owner.token, 'Leaf zone');
      zone = created.hostedZone;
      cloudWorkspace = await api.createWorkspace(owner.token);
      // A placement on a zone without an enrolled Leaf is refused before the Leaf exists.
      const pending = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'too early',
        hostedZoneId: zone.id,
      });
      expect(pending.status).toBe(409);
      expect(pending.body).toEqual({ code: 'HOSTED_ZONE_OFFLINE', error: 'The hosted zone has no enrolled Leaf yet' });
      enrollment = await enroll(created.enrollmentToken);
      // The enrollment token was one-time.
      const again = await leaf('POST', '/api/hosted-zones/enroll', undefined, {
        enrollmentToken: created.enrollmentToken,
        endpointUrl: LEAF_ENDPOINT,
        leafVersion: 'x',
      });
      expect(again.status).toBe(401);
      expect(again.body.code).toBe('UNAUTHENTICATED');
    });

    it('answers the enrollment: zone id, credential, issuer, audience and JWKS URL', () => {
      expect(enrollment).toEqual({
        hostedZoneId: zone.id,
        zoneCredential: expect.stringMatching(/^kwz_[A-Za-z0-9_-]{40,}$/),
        issuer: expect.stringMatching(/^https?:\/\//),
        audience: `urn:kw:hosted-zone:${zone.id}`,
        jwksUri: `${platform.url}/.well-known/jwks.json`,
      });
    });

    it('refuses unknown enrollment tokens and zone credentials with 401', async () => {
      const bogus = await leaf('POST', '/api/hosted-zones/enroll', undefined, {
        enrollmentToken: `kwe_${'A'.repeat(43)}`,
        endpointUrl: LEAF_ENDPOINT,
        leafVersion: 'x',
      });
      expect(bogus.status).toBe(401);
      for (const credential of [
        undefined,
        'kwz_nope',
        `kwz_${'B'.repeat(43)}`,
        enrollment.zoneCredential.replace(/^kwz_/, 'kwp_'),
      ]) {
        const hb = await leaf('POST', '/api/hosted-zones/heartbeat', credential, {});
        expect(hb.status, String(credential)).toBe(401);
        expect(hb.body.code).toBe('UNAUTHENTICATED');
        const ready = await leaf('POST', `/api/hosted-zones/placements/${cloudWorkspace.id}/ready`, credential);
        expect(ready.status).toBe(401);
      }
    });

    it('shows the zone online after a heartbeat, with the endpoint and version the Leaf registered', async () => {
      const hb = await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {
        leafVersion: 'leaf-test-2',
      });
      expect(hb.status).toBe(200);
      expect(hb.body).toEqual({
        hostedZoneId: zone.id,
        placements: [],
        revocations: [],
        // The kids of the JWKS now (none before the first key is made on first use).
        handoffKeyIds: expect.any(Array),
        // Nothing is moving out of the zone, nothing moved away.
        frozenWorkspaceIds: [],
        removedWorkspaceIds: [],
        // The issuer and keys URL now, as at enrollment (a Leaf enrolled before PUBLIC_URL changed takes them).
        issuer: enrollment.issuer,
        jwksUri: `${platform.url}/.well-known/jwks.json`,
      });
      const { hostedZone } = await api.ok(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined, 200);
      expect(hostedZone).toMatchObject({
        status: 'online',
        endpointUrl: LEAF_ENDPOINT,
        leafVersion: 'leaf-test-2',
        enrolledAt: expect.any(String),
        lastHeartbeatAt: expect.any(String),
      });
    });

    it('places a workspace: 201 processing with the placement, listed in the next heartbeat', async () => {
      await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      const res = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'On the Leaf',
        hostedZoneId: zone.id,
      });
      expect(res.status).toBe(201);
      placed = res.body.workspace;
      expect(placed).toMatchObject({
        name: 'On the Leaf',
        status: 'processing',
        hostedZoneId: zone.id,
        endpointUrl: LEAF_ENDPOINT,
        role: 'owner',
      });
      expect(cloudWorkspace).toMatchObject({ status: 'active', hostedZoneId: null, endpointUrl: null });

      const hb = await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      expect(hb.body.placements).toEqual([{ workspaceId: placed.id, name: 'On the Leaf', status: 'processing' }]);
      expect(
        (await api.ok(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined, 200)).hostedZone.workspaceCount,
      ).toBe(1);
    });

    it("refuses placements on an unknown zone and on another user's zone (404 HOSTED_ZONE_NOT_FOUND)", async () => {
      await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      for (const [token, hostedZoneId] of [
        [owner.token, UNKNOWN_ID],
        [stranger.token, zone.id],
      ]) {
        const res = await api.call(token, 'POST', '/api/workspaces', { name: 'nowhere', hostedZoneId });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Hosted zone not found', code: 'HOSTED_ZONE_NOT_FOUND' });
      }
    });

    it('answers every Cloud data-plane route for the Leaf-backed workspace with 409 HOSTED_ZONE_REQUIRED', async () => {
      const routes = [...FRAGMENT_ROUTES, ...LISTING_ROUTES, ...SEARCH_ROUTES, ...WEBHOOK_ROUTES].filter(
        (r) => !r.account && (r.path.includes('{ws}') || JSON.stringify(r.body ?? {}).includes('{ws}')),
      );
      // fragments, fragment types, collections, listing, graph, search, webhooks: each is there.
      for (const prefix of [
        '/api/memory-fragments',
        '/api/workspaces/{ws}/fragment-types',
        '/api/workspaces/{ws}/collections',
        '/api/fragments/list',
        '/api/graph/',
        '/api/search',
        '/api/workspaces/{ws}/webhooks',
      ]) {
        expect(
          routes.some((r) => r.path.startsWith(prefix)),
          prefix,
        ).toBe(true);
      }
      const fill = (text: string) =>
        text
          .replaceAll('{ws}', placed.id)
          .replaceAll('{n}', 'x')
          .replace(/\{(fragment|collection|type|webhook|delivery|member|invitation)\}/g, UNKNOWN_ID);
      const expected = {
        code: 'HOSTED_ZONE_REQUIRED',
        error: 'HOSTED_ZONE_REQUIRED',
        hostedZoneId: zone.id,
        endpointUrl: LEAF_ENDPOINT,
      };
      for (const route of routes) {
        const body = route.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(route.body)));
        const res = await api.call(owner.token, route.method, fill(route.path), body);
        expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(409);
        expect(res.body, `${route.method} ${route.path}`).toEqual(expected);
      }
      // A stranger still learns nothing: 404, not the zone.
      const hidden = await api.call(stranger.token, 'GET', `/api/workspaces/${placed.id}/collections`, undefined);
      expect(hidden.status).toBe(404);
    });

    it('answers the files routes for the Leaf-backed workspace with 409 FILES_UNSUPPORTED_IN_HOSTED_ZONE, storing nothing', async () => {
      const expected = {
        code: 'FILES_UNSUPPORTED_IN_HOSTED_ZONE',
        error: expect.stringContaining('hosted zone'),
        hostedZoneId: zone.id,
      };
      const form = new FormData();
      form.append('workspaceId', placed.id);
      form.append('file', new Blob(['private bytes']), 'secret.txt');
      const upload = await fetch(`${platform.url}/api/files/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}` },
        body: form,
      });
      expect(upload.status).toBe(409);
      expect(await upload.json()).toEqual(expected);
      const proxy = await api.call(owner.token, 'POST', '/api/workspace-files/bytes', {
        workspaceId: placed.id,
        fileName: 'secret.txt',
        mimeType: 'text/plain',
        base64: Buffer.from('private bytes').toString('base64'),
      });
      expect(proxy.status).toBe(409);
      expect(proxy.body).toEqual(expected);
      const search = await api.call(owner.token, 'GET', `/api/files/search?workspaceId=${placed.id}&q=secret`);
      expect(search.status).toBe(409);
      expect(search.body).toEqual(expected);
      const listed = await api.call(owner.token, 'GET', `/api/files?workspaceId=${placed.id}`);
      expect(listed.status).toBe(409);
      expect(listed.body).toEqual(expected);
      expect(existsSync(path.join(dataDir, 'files', 'files', placed.id))).toBe(false);
      // A stranger learns nothing of the zone.
      const hidden = await api.call(stranger.token, 'GET', `/api/files/search?workspaceId=${placed.id}&q=secret`);
      expect(hidden.status).toBe(404);
    });

    it("marks the placement ready: the workspace becomes active; other workspaces are not the zone's (404)", async () => {
      const notMine = await leaf(
        'POST',
        `/api/hosted-zones/placements/${cloudWorkspace.id}/ready`,
        enrollment.zoneCredential,
      );
      expect(notMine.status).toBe(404);
      expect(
        (await leaf('POST', `/api/hosted-zones/placements/${UNKNOWN_ID}/ready`, enrollment.zoneCredential)).status,
      ).toBe(404);
      expect(
        (await leaf('POST', '/api/hosted-zones/placements/not-a-uuid/ready', enrollment.zoneCredential)).status,
      ).toBe(404);

      const ready = await leaf('POST', `/api/hosted-zones/placements/${placed.id}/ready`, enrollment.zoneCredential);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ placement: { workspaceId: placed.id, name: 'On the Leaf', status: 'active' } });
      const { workspace } = await api.ok(owner.token, 'GET', `/api/workspaces/${placed.id}`, undefined, 200);
      expect(workspace).toMatchObject({ status: 'active', hostedZoneId: zone.id, endpointUrl: LEAF_ENDPOINT });
      const hb = await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      expect(hb.body.placements).toEqual([]);
    });

    it('issues a handoff token that verifies against the published JWKS, with every data-plane action for the owner', async () => {
      const res = await api.call(owner.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined);
      expect(res.status).toBe(200);
      expectNoStore(res.headers, 'POST /api/workspaces/{id}/handoff (bearer token)');
      expect(res.body).toEqual({
        success: true,
        token: expect.any(String),
        tokenType: 'Bearer',
        expiresAt: expect.any(String),
        expiresIn: 120,
        hostedZoneId: zone.id,
        endpointUrl: LEAF_ENDPOINT,
        audience: `urn:kw:hosted-zone:${zone.id}`,
        actions: ALL_HANDOFF_ACTIONS,
        workspaceId: placed.id,
      });
      const jwksRes = await fetch(`${platform.url}/.well-known/jwks.json`);
      expect(jwksRes.status).toBe(200);
      const jwks = (await jwksRes.json()) as JSONWebKeySet;
      expect(jwks.keys.length).toBeGreaterThan(0);
      for (const key of jwks.keys) {
        expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
        expect(key).not.toHaveProperty('d');
      }
      const header = decodeProtectedHeader(res.body.token);
      expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT' });
      expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
      const { payload } = await jwtVerify(res.body.token, createLocalJWKSet(jwks), {
        issuer: enrollment.issuer,
        audience: enrollment.audience,
        algorithms: ['ES256'],
      });
      expect(payload).toMatchObject({
        sub: owner.user.id,
        kw_ws: placed.id,
        kw_role: 'owner',
        kw_actions: ALL_HANDOFF_ACTIONS,
        jti: expect.any(String),
      });
      expect(payload.exp! - payload.iat!).toBe(120);
      expect(new Date(payload.exp! * 1000).toISOString()).toBe(res.body.expiresAt);
    });

    it('never gives more than the caller has: a viewer reads, a narrow token gets the intersection, never files', async () => {
      await api.addMember(
        owner.token,
        placed.id,
        { auth: viewer.token, email: viewer.user.email, id: viewer.user.id },
        'viewer',
      );
      const asViewer = await api.ok(viewer.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined, 200);
      expect(asViewer.actions).toEqual(['fragments:read', 'collections:read', 'search:read']);
      const viewerWrite = await createToken(platform.url, viewer.token, {
        scopes: ['workspaces:read', 'fragments:read', 'fragments:write', 'files:read', 'files:write'],
      });
      expect(
        (await api.ok(viewerWrite.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined, 200)).actions,
      ).toEqual(['fragments:read']);
      const narrow = await createToken(platform.url, owner.token, {
        scopes: ['workspaces:read', 'fragments:write', 'files:write'],
        workspaceIds: [placed.id],
      });
      const asNarrow = await api.ok(narrow.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined, 200);
      expect(asNarrow.actions).toEqual(['fragments:write']);
      const jwks = (await (await fetch(`${platform.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
      const { payload } = await jwtVerify(asViewer.token, createLocalJWKSet(jwks), {
        issuer: enrollment.issuer,
        audience: enrollment.audience,
      });
      expect(payload).toMatchObject({
        sub: viewer.user.id,
        kw_role: 'viewer',
        kw_actions: ['fragments:read', 'collections:read', 'search:read'],
      });
    });

    it("authorizes before the zone gate: a viewer's collection writes answer 403, as every other write, not 409", async () => {
      // The viewer became a member in the test above; a collection id that may or may not exist changes nothing.
      for (const [method, path, body] of [
        ['POST', `/api/workspaces/${placed.id}/collections`, { name: 'c' }],
        ['PATCH', `/api/workspaces/${placed.id}/collections/${UNKNOWN_ID}`, { name: 'c' }],
        ['DELETE', `/api/workspaces/${placed.id}/collections/${UNKNOWN_ID}`, undefined],
        ['POST', `/api/workspaces/${placed.id}/collections/${UNKNOWN_ID}/fragments`, { fragmentIds: [UNKNOWN_ID] }],
        ['DELETE', `/api/workspaces/${placed.id}/collections/${UNKNOWN_ID}/fragments`, { fragmentIds: [UNKNOWN_ID] }],
        ['PATCH', `/api/workspaces/${placed.id}/fragment-types/${UNKNOWN_ID}`, { name: 't' }],
      ] as const) {
        const res = await api.call(viewer.token, method, path, body);
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
        expect(res.body.code, `${method} ${path}`).toBe('FORBIDDEN');
      }
      // Reads the viewer may make are sent to the Leaf.
      const read = await api.call(
        viewer.token,
        'GET',
        `/api/workspaces/${placed.id}/collections/${UNKNOWN_ID}`,
        undefined,
      );
      expect(read.status).toBe(409);
      expect(read.body.code).toBe('HOSTED_ZONE_REQUIRED');
    });

    it('refuses the handoff: 409 for a Cloud workspace, 404 for a stranger and an other-workspace token, 403 without workspaces:read, 401 without a credential', async () => {
      const cloud = await api.call(owner.token, 'POST', `/api/workspaces/${cloudWorkspace.id}/handoff`, undefined);
      expect(cloud.status).toBe(409);
      expect(cloud.body.code).toBe('NOT_A_HOSTED_ZONE_WORKSPACE');
      const hidden = await api.call(stranger.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined);
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe(WORKSPACE_NOT_FOUND);
      expect((await api.call(owner.token, 'POST', `/api/workspaces/${UNKNOWN_ID}/handoff`, undefined)).text).toBe(
        WORKSPACE_NOT_FOUND,
      );
      const elsewhere = await createToken(platform.url, owner.token, {
        scopes: ['*'],
        workspaceIds: [cloudWorkspace.id],
      });
      expect((await api.call(elsewhere.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined)).text).toBe(
        WORKSPACE_NOT_FOUND,
      );
      const noRead = await createToken(platform.url, owner.token, { scopes: ['fragments:read'] });
      const denied = await api.call(noRead.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined);
      expect(denied.status).toBe(403);
      expect((await api.call(undefined, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined)).status).toBe(401);
    });

    it('refuses to delete a zone that holds workspaces (409 CONFLICT)', async () => {
      const res = await api.call(owner.token, 'DELETE', `/api/hosted-zones/${zone.id}`, undefined);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', workspaceCount: 1 });
    });

    it('re-enrolls with a new enrollment token: the new credential works, the old one no longer does, and the new Leaf is given every workspace of the zone again', async () => {
      const resetRes = await api.call(owner.token, 'POST', `/api/hosted-zones/${zone.id}/enrollment-token`, undefined);
      expect(resetRes.status).toBe(200);
      expectNoStore(resetRes.headers, 'POST /api/hosted-zones/{id}/enrollment-token');
      const reset = resetRes.body;
      expect(reset.enrollmentToken).toMatch(/^kwe_/);
      expect(reset.hostedZone.id).toBe(zone.id);
      expect((await api.ok(owner.token, 'GET', `/api/workspaces/${placed.id}`, undefined, 200)).workspace.status).toBe(
        'active',
      );
      const again = await enroll(reset.enrollmentToken);
      expect(again.hostedZoneId).toBe(zone.id);
      expect(again.zoneCredential).not.toBe(enrollment.zoneCredential);
      expect((await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {})).status).toBe(401);

      // The Leaf that enrolled may hold none of the zone's workspaces (it lost its state): each is provisioned again.
      const status = async () =>
        (await api.ok(owner.token, 'GET', `/api/workspaces/${placed.id}`, undefined, 200)).workspace.status;
      expect(await status()).toBe('processing');
      const hb = await leaf('POST', '/api/hosted-zones/heartbeat', again.zoneCredential, {});
      expect(hb.status).toBe(200);
      expect(hb.body.placements).toContainEqual({ workspaceId: placed.id, name: placed.name, status: 'processing' });
      const ready = await leaf('POST', `/api/hosted-zones/placements/${placed.id}/ready`, again.zoneCredential);
      expect(ready.status).toBe(200);
      expect(await status()).toBe('active');
      const next = await leaf('POST', '/api/hosted-zones/heartbeat', again.zoneCredential, {});
      expect(next.body.placements).toEqual([]);
      enrollment = again;
    });

    it('refuses an enrollment for another zone than hostedZoneId (409 HOSTED_ZONE_MISMATCH) without using the token or enrolling its zone', async () => {
      const created = await newZone(owner.token, 'Not this one');
      const body = { enrollmentToken: created.enrollmentToken, endpointUrl: LEAF_ENDPOINT, leafVersion: 'x' };
      const refused = await leaf('POST', '/api/hosted-zones/enroll', undefined, { ...body, hostedZoneId: zone.id });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'HOSTED_ZONE_MISMATCH' });
      const unchanged = (await api.ok(owner.token, 'GET', `/api/hosted-zones/${created.hostedZone.id}`, undefined, 200))
        .hostedZone;
      expect(unchanged).toMatchObject({ status: 'pending', enrolledAt: null, endpointUrl: null });
      // An unknown token is still 401, whatever hostedZoneId says.
      const unknown = await leaf('POST', '/api/hosted-zones/enroll', undefined, {
        ...body,
        enrollmentToken: `kwe_${'C'.repeat(43)}`,
        hostedZoneId: zone.id,
      });
      expect(unknown.status).toBe(401);
      // The token was not used: it enrolls its own zone (named or not).
      const own = await leaf('POST', '/api/hosted-zones/enroll', undefined, {
        ...body,
        hostedZoneId: created.hostedZone.id,
      });
      expect(own.status).toBe(200);
      expect(own.body.hostedZoneId).toBe(created.hostedZone.id);
    });

    it("answers a zone's revocations in its heartbeats (a removed member, a revoked token), and none to other zones", async () => {
      const narrow = await createToken(platform.url, viewer.token, { scopes: ['workspaces:read', 'fragments:read'] });
      await api.ok(narrow.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined, 200);
      await api.ok(viewer.token, 'DELETE', `/api/tokens/${narrow.id}`, undefined, 204);
      await api.ok(owner.token, 'DELETE', `/api/workspaces/${placed.id}/members/${viewer.user.id}`, undefined, 204);
      const hb = await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      expect(hb.body.revocations).toEqual(
        expect.arrayContaining([
          { userId: null, workspaceId: null, credentialId: narrow.id, revokedAt: expect.any(String) },
          { userId: viewer.user.id, workspaceId: placed.id, credentialId: null, revokedAt: expect.any(String) },
        ]),
      );
      // A zone where none of these got a handoff token learns nothing of them.
      const other = await newZone(owner.token, 'Elsewhere');
      const otherLeaf = await enroll(other.enrollmentToken);
      const otherHb = await leaf('POST', '/api/hosted-zones/heartbeat', otherLeaf.zoneCredential, {});
      expect(otherHb.body.revocations).toEqual([]);
    });

    it('refuses placements on a zone whose Leaf registered a plain-http endpoint (409 HOSTED_ZONE_ENDPOINT_NOT_HTTPS)', async () => {
      const created = await newZone(owner.token, 'Plain http zone');
      const enrolled = await enroll(created.enrollmentToken, 'http://127.0.0.1:9/leaf');
      await leaf('POST', '/api/hosted-zones/heartbeat', enrolled.zoneCredential, {});
      const res = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'in the clear',
        hostedZoneId: created.hostedZone.id,
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'HOSTED_ZONE_ENDPOINT_NOT_HTTPS',
        error:
          "The hosted zone's endpoint is not https: clients would send it their handoff tokens in the clear. Give the Leaf an https PUBLIC_URL",
      });
      // Once the Leaf registers an https endpoint (its next heartbeat), placement works.
      await leaf('POST', '/api/hosted-zones/heartbeat', enrolled.zoneCredential, { endpointUrl: LEAF_ENDPOINT });
      const placed = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'over tls',
        hostedZoneId: created.hostedZone.id,
      });
      expect(placed.status).toBe(201);
      expect(placed.body.workspace.endpointUrl).toBe(LEAF_ENDPOINT);
    });

    it('shows a zone offline once heartbeats stop, and refuses placements on it (409 HOSTED_ZONE_OFFLINE)', async () => {
      const created = await newZone(owner.token, 'Silent zone');
      await enroll(created.enrollmentToken);
      // Waits for the status to change (no heartbeats are sent): a state, not a duration, is asserted.
      let status = 'online';
      for (let i = 0; i < 40 && status !== 'offline'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        status = (await api.ok(owner.token, 'GET', `/api/hosted-zones/${created.hostedZone.id}`, undefined, 200))
          .hostedZone.status;
      }
      expect(status).toBe('offline');
      const res = await api.call(owner.token, 'POST', '/api/workspaces', {
        name: 'offline',
        hostedZoneId: created.hostedZone.id,
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'HOSTED_ZONE_OFFLINE',
        error: 'The hosted zone is offline (no recent heartbeat from its Leaf)',
      });
    }, 30_000);

    it('rotates the handoff keys at once for a platform administrator: old keys leave the JWKS and the heartbeat names the new set', async () => {
      const before = await readJwks();
      expect((await api.call(owner.token, 'POST', '/api/admin/handoff-keys/rotate', undefined)).status).toBe(403);
      const rotated = await api.ok(admin.ADMIN_TOKEN, 'POST', '/api/admin/handoff-keys/rotate', undefined, 200);
      expect(rotated.revokedKids).toEqual(before.keys.map((k) => k.kid));
      expect((await readJwks()).keys.map((k) => k.kid)).toEqual([rotated.kid]);
      const beat = await leaf('POST', '/api/hosted-zones/heartbeat', enrollment.zoneCredential, {});
      expect(beat.body.handoffKeyIds).toEqual([rotated.kid]);
      // New handoff tokens are signed with the new key.
      const handoff = await api.ok(owner.token, 'POST', `/api/workspaces/${placed.id}/handoff`, undefined, 200);
      expect(decodeProtectedHeader(handoff.token).kid).toBe(rotated.kid);
    });

    it('deletes a zone whose workspaces are archived only when told to, and those workspaces with it', async () => {
      await api.ok(owner.token, 'DELETE', `/api/workspaces/${placed.id}`, undefined, 200);
      const refused = await api.call(owner.token, 'DELETE', `/api/hosted-zones/${zone.id}`, undefined);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', archivedWorkspaceCount: 1 });
      const deleted = await api.ok(
        owner.token,
        'DELETE',
        `/api/hosted-zones/${zone.id}?deleteArchivedWorkspaces=true`,
        undefined,
        200,
      );
      expect(deleted).toEqual({ success: true, deletedWorkspaceIds: [placed.id] });
      expect((await api.call(owner.token, 'GET', `/api/hosted-zones/${zone.id}`, undefined)).status).toBe(404);
      const archived = await api.ok(owner.token, 'GET', '/api/workspaces/archived', undefined, 200);
      expect(archived.items.map((w: any) => w.id)).not.toContain(placed.id);
      expect((await api.call(owner.token, 'POST', `/api/workspaces/${placed.id}/restore`, undefined)).status).toBe(404);
    });
  });

  describe('moves and the zone', () => {
    let zone: any;
    let credential: string;
    const beat = async (body: unknown = {}) => {
      const res = await leaf('POST', '/api/hosted-zones/heartbeat', credential, body);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const moveOf = async (workspaceId: string, moveId: string) =>
      (await api.ok(owner.token, 'GET', `/api/workspaces/${workspaceId}/moves/${moveId}`, undefined, 200)).move;
    const workspaceOf = async (workspaceId: string) =>
      (await api.ok(owner.token, 'GET', `/api/workspaces/${workspaceId}`, undefined, 200)).workspace;
    /** A workspace placed on the zone and active there. */
    const placedWorkspace = async () => {
      await beat();
      const ws = await api.ok(
        owner.token,
        'POST',
        '/api/workspaces',
        { name: 'On the zone', hostedZoneId: zone.id },
        201,
      );
      expect((await leaf('POST', `/api/hosted-zones/placements/${ws.workspace.id}/ready`, credential)).status).toBe(
        200,
      );
      expect((await workspaceOf(ws.workspace.id)).status).toBe('active');
      return ws.workspace;
    };

    beforeAll(async () => {
      const created = await newZone(owner.token, 'Moves');
      zone = created.hostedZone;
      credential = (await enroll(created.enrollmentToken)).zoneCredential;
    });

    it('refuses to start, hand off or complete a move to a credential restricted to a list of workspaces (403, as zone routes); it may read and abort one', async () => {
      const refused = {
        code: 'FORBIDDEN',
        error:
          'This credential is restricted to a list of workspaces, so it cannot move a workspace between planes; use a credential for all of your workspaces',
      };
      const cloudWs = await api.createWorkspace(owner.token);
      const onZone = await placedWorkspace();
      const restricted = await createToken(platform.url, owner.token, {
        scopes: ['*'],
        workspaceIds: [cloudWs.id, onZone.id],
      });
      await beat();
      // Onto one of the account's zones, and out of one: both refused, nothing started.
      for (const [ws, hostedZoneId] of [
        [cloudWs, zone.id],
        [onZone, null],
      ] as const) {
        const res = await api.call(restricted.token, 'POST', `/api/workspaces/${ws.id}/moves`, { hostedZoneId });
        expect(res.status, `move ${ws.id} to ${hostedZoneId}`).toBe(403);
        expect(res.body).toEqual(refused);
        expect((await workspaceOf(ws.id)).status).toBe('active');
      }
      // A workspace outside its list is not its to see: 404 first, as everywhere.
      const outside = await api.createWorkspace(owner.token);
      const hidden = await api.call(restricted.token, 'POST', `/api/workspaces/${outside.id}/moves`, {
        hostedZoneId: zone.id,
      });
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe(WORKSPACE_NOT_FOUND);

      // The owner's full token moves it.
      const { move } = await api.ok(
        owner.token,
        'POST',
        `/api/workspaces/${cloudWs.id}/moves`,
        { hostedZoneId: zone.id },
        201,
      );
      expect(move).toMatchObject({ status: 'preparing', fromHostedZoneId: null, toHostedZoneId: zone.id });
      expect((await beat()).placements).toContainEqual({
        workspaceId: cloudWs.id,
        name: cloudWs.name,
        status: 'processing',
      });
      expect((await leaf('POST', `/api/hosted-zones/placements/${cloudWs.id}/ready`, credential)).status).toBe(200);
      expect((await moveOf(cloudWs.id, move.id)).status).toBe('copying');
      const moveRoute = `/api/workspaces/${cloudWs.id}/moves/${move.id}`;
      for (const [path, body] of [
        [`${moveRoute}/handoff`, undefined],
        [`${moveRoute}/complete`, {}],
      ] as const) {
        const res = await api.call(restricted.token, 'POST', path, body);
        expect(res.status, path).toBe(403);
        expect(res.body, path).toEqual(refused);
      }
      expect((await moveOf(cloudWs.id, move.id)).status).toBe('copying');
      const handoff = await api.ok(owner.token, 'POST', `${moveRoute}/handoff`, undefined, 200);
      expect(handoff.hostedZoneId).toBe(zone.id);
      // Reading the move, and aborting it (back to where it was), stay its own.
      expect((await api.ok(restricted.token, 'GET', moveRoute, undefined, 200)).move.id).toBe(move.id);
      const aborted = await api.ok(restricted.token, 'POST', `${moveRoute}/abort`, undefined, 200);
      expect(aborted.move.status).toBe('aborted');
      expect(await workspaceOf(cloudWs.id)).toMatchObject({ status: 'active', hostedZoneId: null });
    });

    it('re-enrolled during moves: a move into the zone waits for the new Leaf to provision the workspace, and one aborted out of it has it provisioned again', async () => {
      const placements = async () => ((await beat()).placements as any[]).map((p) => p.workspaceId);
      // Out of the zone, copying (the Leaf serves it read-only).
      const leaving = await placedWorkspace();
      const out = (
        await api.ok(owner.token, 'POST', `/api/workspaces/${leaving.id}/moves`, { hostedZoneId: null }, 201)
      ).move;
      await beat({ frozenWorkspaceIds: [leaving.id] });
      expect((await moveOf(leaving.id, out.id)).status).toBe('copying');
      // Into the zone, copying (the Leaf provisioned it, the Cloud source is read-only at once).
      const arriving = await api.createWorkspace(owner.token);
      const into = (
        await api.ok(owner.token, 'POST', `/api/workspaces/${arriving.id}/moves`, { hostedZoneId: zone.id }, 201)
      ).move;
      expect(await placements()).toContain(arriving.id);
      expect((await leaf('POST', `/api/hosted-zones/placements/${arriving.id}/ready`, credential)).status).toBe(200);
      expect((await moveOf(arriving.id, into.id)).status).toBe('copying');

      // A new Leaf enrolls (it may hold none of the zone's workspaces).
      const reset = await api.ok(owner.token, 'POST', `/api/hosted-zones/${zone.id}/enrollment-token`, undefined, 200);
      credential = (await enroll(reset.enrollmentToken)).zoneCredential;

      // The move in waits for the new Leaf to provision its target: it is listed again, and it
      // cannot complete onto a Leaf that never had it.
      expect(await moveOf(arriving.id, into.id)).toMatchObject({ status: 'preparing' });
      expect(await placements()).toContain(arriving.id);
      const early = await api.call(owner.token, 'POST', `/api/workspaces/${arriving.id}/moves/${into.id}/complete`, {});
      expect(early.status).toBe(409);
      expect((await leaf('POST', `/api/hosted-zones/placements/${arriving.id}/ready`, credential)).status).toBe(200);
      expect((await moveOf(arriving.id, into.id)).status).toBe('copying');
      const completed = await api.ok(
        owner.token,
        'POST',
        `/api/workspaces/${arriving.id}/moves/${into.id}/complete`,
        {},
        200,
      );
      expect(completed.move.status).toBe('done');
      expect(await workspaceOf(arriving.id)).toMatchObject({ status: 'active', hostedZoneId: zone.id });

      // The move out is still the owner's to end; aborted, the workspace is provisioned again by
      // the new Leaf (listed as a placement), then active on the zone, not active on a Leaf that lacks it.
      expect(await workspaceOf(leaving.id)).toMatchObject({ status: 'moving', hostedZoneId: zone.id });
      const aborted = await api.ok(
        owner.token,
        'POST',
        `/api/workspaces/${leaving.id}/moves/${out.id}/abort`,
        undefined,
        200,
      );
      expect(aborted.move.status).toBe('aborted');
      expect(await workspaceOf(leaving.id)).toMatchObject({ status: 'processing', hostedZoneId: zone.id });
      expect(await placements()).toContain(leaving.id);
      expect((await leaf('POST', `/api/hosted-zones/placements/${leaving.id}/ready`, credential)).status).toBe(200);
      expect(await workspaceOf(leaving.id)).toMatchObject({ status: 'active', hostedZoneId: zone.id });
      expect(await placements()).not.toContain(leaving.id);
      // And it moves again.
      const again = await api.ok(
        owner.token,
        'POST',
        `/api/workspaces/${leaving.id}/moves`,
        { hostedZoneId: null },
        201,
      );
      await api.ok(owner.token, 'POST', `/api/workspaces/${leaving.id}/moves/${again.move.id}/abort`, undefined, 200);
    });
  });
});
