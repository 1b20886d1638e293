import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startDistributed, type DistributedPlatform } from '../../support/distributed.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

/**
 * The Cloud side of hosted zones in the distributed mode: the HostedZonesService messages
 * cross NATS, the workspaces process seals its signing keys with SECRETS_ENCRYPTION_KEY, and
 * the search process (another component) answers HOSTED_ZONE_REQUIRED with the zone's endpoint.
 */
describeWith(['postgres', 'nats'], 'hosted zones (Cloud, distributed)', () => {
  const admin = adminEnv();
  // No Leaf answers there: the Cloud never calls it, it only hands it out (https, as placement requires).
  const endpointUrl = 'https://127.0.0.1:9/leaf';
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: DistributedPlatform;

  beforeAll(async () => {
    db = await createTestDatabase('kw_zones');
    platform = await startDistributed({ DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL!, ...admin });
  }, 120_000);

  afterAll(async () => {
    if (platform) expect(await platform.stop()).toBe(0);
    await db?.drop();
  }, 60_000);

  it('creates a zone, enrolls a Leaf, places a workspace and hands off a token that verifies against the JWKS', async () => {
    const api = workspacesApi(platform.url);
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const created = await api.ok(token, 'POST', '/api/hosted-zones', { name: 'dist', region: 'here' }, 201);
    const post = (path: string, body: unknown, credential?: string) =>
      fetch(`${platform.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(credential && { authorization: `Bearer ${credential}` }) },
        body: JSON.stringify(body),
      });
    const enrolled: any = await (
      await post('/api/hosted-zones/enroll', {
        enrollmentToken: created.enrollmentToken,
        endpointUrl,
        leafVersion: 'd1',
      })
    ).json();
    expect(enrolled.hostedZoneId).toBe(created.hostedZone.id);
    expect((await post('/api/hosted-zones/heartbeat', {}, enrolled.zoneCredential)).status).toBe(200);

    const { workspace } = await api.ok(
      token,
      'POST',
      '/api/workspaces',
      { name: 'leaf-backed', hostedZoneId: enrolled.hostedZoneId },
      201,
    );
    expect(workspace).toMatchObject({ status: 'processing', endpointUrl });
    const ready: any = await (
      await post(`/api/hosted-zones/placements/${workspace.id}/ready`, {}, enrolled.zoneCredential)
    ).json();
    expect(ready.placement.status).toBe('active');

    const search = await api.call(token, 'GET', `/api/search?workspaceId=${workspace.id}&q=x`, undefined);
    expect(search.status).toBe(409);
    expect(search.body).toEqual({
      code: 'HOSTED_ZONE_REQUIRED',
      error: 'HOSTED_ZONE_REQUIRED',
      hostedZoneId: enrolled.hostedZoneId,
      endpointUrl,
    });

    const handoff = await api.ok(token, 'POST', `/api/workspaces/${workspace.id}/handoff`, undefined, 200);
    const jwks = (await (await fetch(`${platform.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(handoff.token, createLocalJWKSet(jwks), {
      issuer: enrolled.issuer,
      audience: enrolled.audience,
      algorithms: ['ES256'],
    });
    expect(payload.kw_ws).toBe(workspace.id);
    expect(payload.kw_role).toBe('owner');
  });
});
