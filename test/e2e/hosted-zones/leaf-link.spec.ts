import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken, createToken } from '../../support/accounts.js';
import { ALLOW_HTTP_ENDPOINTS, freePort, startLeaf } from '../../support/hosted-zones.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startApp, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { startIdentityProvider, type IdentityProvider } from '../../support/stand-ins/identity-provider-stand-in.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

/**
 * A real Cloud (embedded, its own database) and a real Leaf process (another database), over
 * HTTP only: what the Cloud revokes reaches the Leaf with its heartbeats, and the Leaf's health
 * and metrics show its link to the Cloud through an outage. docs/hosted-zones.md#revocation,
 * docs/hosted-zones-leaf.md ("Health").
 */
const CLOUD_KEY = 'd'.repeat(64);
const LEAF_KEY = 'e'.repeat(64);
const HEARTBEAT_SECONDS = 1;
/**
 * The documented bound: a revocation reaches the Leaf with its next heartbeat, so within one
 * heartbeat interval plus the heartbeat's round trip. The margin is for this loaded machine,
 * and stays far below the token lifetime (300 s), the bound before revocations existed.
 */
const BOUND_MS = HEARTBEAT_SECONDS * 1000 + 3_000;
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
  AUTH_FAILURES_PER_ADDRESS: '1000000',
  AUTH_FAILURES_PER_CREDENTIAL: '1000000',
};
const EVENT_ACCOUNT_DISABLED = 'https://schemas.openid.net/secevent/risc/event-type/account-disabled';

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeWith(
  ['postgres'],
  "hosted zones: revocations reach the Leaf, and the Leaf's health shows its Cloud link",
  () => {
    const admin = adminEnv();
    const cloudDir = tempDir('kw-hz-cloud-');
    let cloudDb: Awaited<ReturnType<typeof createTestDatabase>>;
    let leafDb: Awaited<ReturnType<typeof createTestDatabase>>;
    let idp: IdentityProvider;
    let cloud: PlatformProcess | undefined;
    let cloudUrl: string;
    let leaf: PlatformProcess;
    let leafPort: number;
    const leafDir = tempDir('kw-hz-leaf-');
    let zoneId: string;
    let zoneToken: string;
    let owner: { token: string; id: string };
    let workspaceId: string;
    let noteTypeId: string;
    const api = () => workspacesApi(cloudUrl);

    /** The Cloud, always at the same address (the Leaf's CLOUD_URL) and on the same database. */
    function startCloud(env: Record<string, string> = {}): Promise<PlatformProcess> {
      return startApp('gateway', {
        RUN_MODE: 'embedded',
        PORT: new URL(cloudUrl).port,
        PUBLIC_URL: cloudUrl,
        DATA_DIR: cloudDir,
        DATABASE_URL: cloudDb.url,
        SECRETS_ENCRYPTION_KEY: CLOUD_KEY,
        // The Leaf of this machine is plain http.
        ...ALLOW_HTTP_ENDPOINTS,
        AGENT_TRUSTED_ISSUERS: JSON.stringify([idp.trusted]),
        AGENT_JWKS_ALLOW_PRIVATE: 'true',
        ...admin,
        ...UNLIMITED,
        ...env,
      });
    }

    /** A member of the workspace with a personal access token, and a handoff token through it. */
    async function member(role: string) {
      const { user, token, tokenId } = await userWithToken(cloudUrl, admin.ADMIN_TOKEN);
      await api().addMember(owner.token, workspaceId, { auth: token, email: user.email, id: user.id }, role);
      return { user, token, tokenId };
    }

    const handoff = async (token: string, workspace = workspaceId): Promise<string> =>
      (await api().ok(token, 'POST', `/api/workspaces/${workspace}/handoff`, undefined, 200)).token;

    /** The Leaf, always on the same port, database and DATA_DIR. */
    function startTheLeaf(enrollmentToken: string): Promise<PlatformProcess> {
      return startLeaf({
        PORT: String(leafPort),
        PUBLIC_URL: `http://127.0.0.1:${leafPort}`,
        DATABASE_URL: leafDb.url,
        DATA_DIR: leafDir,
        CLOUD_URL: cloudUrl,
        ENROLLMENT_TOKEN: enrollmentToken,
        SECRETS_ENCRYPTION_KEY: LEAF_KEY,
        LEAF_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        ...UNLIMITED,
      });
    }

    /** A new workspace on the zone, once the Leaf provisioned it. */
    async function placedWorkspace(name: string): Promise<string> {
      const { workspace } = await api().ok(owner.token, 'POST', '/api/workspaces', { name, hostedZoneId: zoneId }, 201);
      await until('the workspace active', async () => {
        const { workspace: w } = await api().ok(owner.token, 'GET', `/api/workspaces/${workspace.id}`, undefined, 200);
        return w.status === 'active';
      });
      return workspace.id;
    }

    async function atLeaf(
      token: string,
      method = 'GET',
      path = `/api/memory-fragments?workspaceId=${workspaceId}`,
      body?: unknown,
    ) {
      const res = await fetch(`${leaf.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }

    /** Reads at the Leaf until the token is refused; answers how long that took after `since`. */
    async function refusedAfter(token: string, since: number) {
      const refusal = await until('the Leaf to refuse the token', async () => {
        const res = await atLeaf(token);
        return res.status === 401 && res;
      });
      return { elapsedMs: Date.now() - since, body: refusal.body };
    }

    const health = async () => {
      const res = await fetch(`${leaf.url}/api/health`);
      return { status: res.status, body: (await res.json()) as any };
    };
    const metric = async (name: string) => {
      const text = await (await fetch(`${leaf.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };

    beforeAll(async () => {
      idp = await startIdentityProvider();
      cloudDb = await createTestDatabase('kw_hz_cloud');
      leafDb = await createTestDatabase('kw_hz_leaf');
      cloudUrl = `http://127.0.0.1:${await freePort()}`;
      cloud = await startCloud();
      const o = await userWithToken(cloudUrl, admin.ADMIN_TOKEN);
      owner = { token: o.token, id: o.user.id };

      const created = await api().ok(owner.token, 'POST', '/api/hosted-zones', { name: 'Links', region: 'here' }, 201);
      zoneId = created.hostedZone.id;
      zoneToken = created.enrollmentToken;
      leafPort = await freePort();
      leaf = await startTheLeaf(zoneToken);
      await until('the zone online', async () => {
        const { hostedZone } = await api().ok(
          owner.token,
          'GET',
          `/api/hosted-zones/${created.hostedZone.id}`,
          undefined,
          200,
        );
        return hostedZone.status === 'online';
      });
      const { workspace } = await api().ok(
        owner.token,
        'POST',
        '/api/workspaces',
        { name: 'Revocations', hostedZoneId: created.hostedZone.id },
        201,
      );
      workspaceId = workspace.id;
      await until('the workspace active', async () => {
        const { workspace: w } = await api().ok(owner.token, 'GET', `/api/workspaces/${workspaceId}`, undefined, 200);
        return w.status === 'active';
      });
      const types = await atLeaf(await handoff(owner.token), 'GET', `/api/workspaces/${workspaceId}/fragment-types`);
      noteTypeId = types.body.items.find((t: { key: string }) => t.key === 'note').id;
    }, 180_000);

    afterAll(async () => {
      await leaf?.stop();
      await cloud?.stop();
      await idp?.close();
      await cloudDb?.drop();
      await leafDb?.drop();
      rmSync(cloudDir, { recursive: true, force: true });
      rmSync(leafDir, { recursive: true, force: true });
    }, 60_000);

    it("refuses a removed member's handoff token within one heartbeat; other members are not affected", async () => {
      const removed = await member('viewer');
      const token = await handoff(removed.token);
      const ownerToken = await handoff(owner.token);
      expect((await atLeaf(token)).status).toBe(200);

      await api().ok(
        owner.token,
        'DELETE',
        `/api/workspaces/${workspaceId}/members/${removed.user.id}`,
        undefined,
        204,
      );
      const { elapsedMs, body } = await refusedAfter(token, Date.now());
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect(body).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('revoked') });
      expect((await atLeaf(ownerToken)).status).toBe(200);
      // And the Cloud hands the former member no new one.
      expect((await api().call(removed.token, 'POST', `/api/workspaces/${workspaceId}/handoff`)).status).toBe(404);
    });

    it('refuses a demoted member’s token (it carries the old role); a new one carries the new role', async () => {
      const demoted = await member('collaborator');
      const token = await handoff(demoted.token);
      const write = () =>
        atLeaf(token, 'POST', '/api/memory-fragments', {
          workspaceId,
          fragmentTypeId: noteTypeId,
          title: 'by a collaborator',
          content: 'written while a collaborator',
        });
      expect((await write()).status).toBe(201);

      const changedAt = Date.now();
      await api().ok(
        owner.token,
        'PATCH',
        `/api/workspaces/${workspaceId}/members/${demoted.user.id}`,
        { role: 'viewer' },
        200,
      );
      // The revocation is recorded at most when the change answered (a busy machine may take a while).
      const answeredAt = Date.now();
      const { elapsedMs } = await refusedAfter(token, changedAt);
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect((await write()).status).toBe(401);

      // Tokens issued up to the second after a revocation are refused too (docs): ask after it.
      await new Promise((r) => setTimeout(r, Math.max(0, answeredAt + 2_100 - Date.now())));
      const fresh = await api().ok(demoted.token, 'POST', `/api/workspaces/${workspaceId}/handoff`, undefined, 200);
      expect(fresh.actions).not.toContain('fragments:write');
      expect((await atLeaf(fresh.token)).status).toBe(200);
      const denied = await atLeaf(fresh.token, 'POST', '/api/memory-fragments', {
        workspaceId,
        fragmentTypeId: noteTypeId,
        title: 'by a viewer',
        content: 'not allowed',
      });
      expect(denied.status).toBe(403);
    });

    it("refuses a disabled account's handoff token within one heartbeat (account-disabled security event)", async () => {
      const disabled = await member('contributor');
      const token = await handoff(disabled.token);
      expect((await atLeaf(token)).status).toBe(200);

      const set = await idp.securityEvent(
        cloudUrl,
        { [EVENT_ACCOUNT_DISABLED]: {} },
        { sub_id: { format: 'email', email: disabled.user.email } },
      );
      const pushed = await fetch(`${cloudUrl}/agent/event/notify`, {
        method: 'POST',
        headers: { 'content-type': 'application/secevent+jwt' },
        body: set,
      });
      expect(pushed.status).toBe(202);
      const { elapsedMs } = await refusedAfter(token, Date.now());
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect((await api().call(disabled.token, 'GET', `/api/workspaces/${workspaceId}`)).status).toBe(401);
    });

    it('refuses the handoff tokens issued through a revoked access token, not those of the same user’s other token', async () => {
      const holder = await member('viewer');
      const other = await createToken(cloudUrl, holder.token, { name: 'second' });
      const viaRevoked = await handoff(holder.token);
      const viaOther = await handoff(other.token);
      expect((await atLeaf(viaRevoked)).status).toBe(200);

      await api().ok(other.token, 'DELETE', `/api/tokens/${holder.tokenId}`, undefined, 204);
      const { elapsedMs } = await refusedAfter(viaRevoked, Date.now());
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect((await atLeaf(viaOther)).status).toBe(200);
    });

    it('stops serving an archived workspace within one heartbeat (its tokens are revoked), keeps its data, and serves it again after a restore', async () => {
      const archivedId = await placedWorkspace('Archived and back');
      const token = await handoff(owner.token, archivedId);
      const types = await atLeaf(token, 'GET', `/api/workspaces/${archivedId}/fragment-types`);
      const note = types.body.items.find((t: { key: string }) => t.key === 'note').id;
      const list = (t: string) => atLeaf(t, 'GET', `/api/memory-fragments?workspaceId=${archivedId}`);
      const write = (t: string) =>
        atLeaf(t, 'POST', '/api/memory-fragments', {
          workspaceId: archivedId,
          fragmentTypeId: note,
          title: 'Kept through the archive',
          content: 'still here after a restore',
        });
      expect((await write(token)).status).toBe(201);
      const other = await handoff(owner.token);

      const archivedAt = Date.now();
      await api().ok(owner.token, 'DELETE', `/api/workspaces/${archivedId}`, undefined, 200);
      const answeredAt = Date.now();
      const { elapsedMs, body } = await refusedAfter(token, archivedAt);
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect(body).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('revoked') });
      expect((await list(token)).status).toBe(401);
      expect((await write(token)).status).toBe(401);
      expect((await api().call(owner.token, 'POST', `/api/workspaces/${archivedId}/handoff`)).status).toBe(404);
      // Another workspace of the zone is not affected.
      expect((await atLeaf(other)).status).toBe(200);

      // Tokens issued up to the second after a revocation are refused too (docs): restore after it.
      await new Promise((r) => setTimeout(r, Math.max(0, answeredAt + 2_100 - Date.now())));
      await api().ok(owner.token, 'POST', `/api/workspaces/${archivedId}/restore`, undefined, 200);
      const fresh = await handoff(owner.token, archivedId);
      const listed = await list(fresh);
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((f: { title: string }) => f.title)).toEqual(['Kept through the archive']);
      expect((await write(fresh)).status).toBe(201);
    });

    it('refuses the tokens of a withdrawn signing key once the Cloud rotates it after a compromise; new tokens work', async () => {
      const before = await handoff(owner.token);
      expect((await atLeaf(before)).status).toBe(200);
      await api().ok(admin.ADMIN_TOKEN, 'POST', '/api/admin/handoff-keys/rotate', undefined, 200);
      // The next heartbeat names the new key set: the Leaf fetches it at once, without the old key.
      const { elapsedMs } = await refusedAfter(before, Date.now());
      expect(elapsedMs).toBeLessThan(BOUND_MS);
      expect((await atLeaf(await handoff(owner.token))).status).toBe(200);
    });

    it("reports the Cloud link in the Leaf's health and metrics: degraded (still 200, still serving) while the Cloud is stopped, ok again once it is back", async () => {
      const up = await until('a healthy link', async () => {
        const h = await health();
        return h.body.cloudLink?.status === 'ok' && h;
      });
      expect(up.status).toBe(200);
      expect(up.body.status).toBe('ok');
      expect(up.body.cloudLink).toMatchObject({
        enrolled: true,
        link: 'up',
        lastHeartbeatAt: expect.any(String),
        lastFailureAt: null,
        keys: { count: expect.any(Number), fetchedAt: expect.any(String), fresh: true },
        revocations: { count: expect.any(Number), updatedAt: expect.any(String) },
      });
      expect(up.body.cloudLink.keys.count).toBeGreaterThan(0);
      // The revocations of the tests above are still in the list (younger than the token lifetime).
      expect(up.body.cloudLink.revocations.count).toBeGreaterThan(0);
      expect(await metric('kw_leaf_cloud_link_up')).toBe(1);
      expect(await metric('kw_leaf_last_heartbeat_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 30);
      expect(await metric('kw_leaf_handoff_keys_fetched_timestamp_seconds')).toBeGreaterThan(0);
      expect(await metric('kw_leaf_handoff_revocations')).toBe(up.body.cloudLink.revocations.count);

      const token = await handoff(owner.token);
      expect(await cloud!.stop()).toBe(0);
      cloud = undefined;
      const down = await until('the link reported down', async () => {
        const h = await health();
        return h.body.cloudLink.link === 'unreachable' && h;
      });
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({ status: 'degraded', ready: true });
      expect(down.body.cloudLink).toMatchObject({
        status: 'degraded',
        detail: expect.stringContaining('unreachable'),
        lastFailureAt: expect.any(String),
        keys: { fresh: true },
      });
      expect(await metric('kw_leaf_cloud_link_up')).toBe(0);
      // Still serving with the cached keys (and still refusing what was revoked).
      expect((await atLeaf(token)).status).toBe(200);

      cloud = await startCloud();
      const back = await until('the link reported up again', async () => {
        const h = await health();
        return h.body.cloudLink.status === 'ok' && h;
      });
      expect(back.status).toBe(200);
      expect(back.body.status).toBe('ok');
      expect(Date.parse(back.body.cloudLink.lastHeartbeatAt)).toBeGreaterThan(
        Date.parse(down.body.cloudLink.lastFailureAt),
      );
      expect(await metric('kw_leaf_cloud_link_up')).toBe(1);
    }, 120_000);

    it("keeps refusing a removed member's token issued under a longer lifetime after HANDOFF_TOKEN_TTL_SECONDS is lowered", async () => {
      // Issued under the default lifetime (300 s), revoked, then the operator lowers it to 5 s.
      const removed = await member('viewer');
      const token = await handoff(removed.token);
      expect((await atLeaf(token)).status).toBe(200);
      await api().ok(
        owner.token,
        'DELETE',
        `/api/workspaces/${workspaceId}/members/${removed.user.id}`,
        undefined,
        204,
      );
      const revokedAt = Date.now();
      await refusedAfter(token, revokedAt);
      expect(await cloud!.stop()).toBe(0);
      cloud = await startCloud({ HANDOFF_TOKEN_TTL_SECONDS: '5' });
      try {
        // Past the new lifetime plus the minute's margin, and a few heartbeats more: the token
        // (valid for 300 s) is still refused, so the Cloud still sends the entry.
        await new Promise((r) => setTimeout(r, Math.max(0, revokedAt + 5_000 + 60_000 + 4_000 - Date.now())));
        await until('a heartbeat answered by the restarted Cloud', async () => {
          const h = await health();
          return h.body.cloudLink?.link === 'up' && Date.parse(h.body.cloudLink.revocations.updatedAt) > revokedAt;
        });
        await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_SECONDS * 1000));
        const refused = await atLeaf(token);
        expect(refused.status).toBe(401);
        expect(refused.body).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('revoked') });
      } finally {
        expect(await cloud!.stop()).toBe(0);
        cloud = await startCloud();
      }
    }, 180_000);

    it("takes the Cloud's new issuer after its PUBLIC_URL changed: the Leaf accepts its handoff tokens again, and says so in its log", async () => {
      /** A token of the Cloud as it is now, once the Leaf serves it; its `iss`. */
      const servedIssuer = async () => {
        const token = await until('a new handoff token served at the Leaf', async () => {
          const t = await handoff(owner.token);
          return (await atLeaf(t)).status === 200 && t;
        });
        return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).iss as string;
      };
      const moved = `http://localhost:${new URL(cloudUrl).port}`;
      expect(await cloud!.stop()).toBe(0);
      cloud = await startCloud({ PUBLIC_URL: moved });
      try {
        expect(await servedIssuer()).toBe(moved);
        const h = await health();
        expect(h.status).toBe(200);
        expect(h.body.cloudLink).toMatchObject({ status: 'ok', link: 'up' });
        expect(leaf.logs.some((l) => /issuer changed/.test(String(l.msg)))).toBe(true);
      } finally {
        expect(await cloud!.stop()).toBe(0);
        cloud = await startCloud();
      }
      expect(await servedIssuer()).toBe(cloudUrl);
    }, 120_000);

    it('re-enrolled with a new token, a Leaf that lost its state serves every workspace of the zone again (empty), and so does the first Leaf once enrolled back (with its content)', async () => {
      const kept = await placedWorkspace('Through re-enrollments');
      const types = await atLeaf(await handoff(owner.token, kept), 'GET', `/api/workspaces/${kept}/fragment-types`);
      const note = types.body.items.find((t: { key: string }) => t.key === 'note').id;
      const written = await atLeaf(await handoff(owner.token, kept), 'POST', '/api/memory-fragments', {
        workspaceId: kept,
        fragmentTypeId: note,
        title: 'Held by the first Leaf',
        content: 'only on the first Leaf',
      });
      expect(written.status).toBe(201);
      /** The workspace's fragment titles where the Cloud's handoff sends the client, once served there. */
      const servedAt = (endpointUrl: string, workspace: string) =>
        until(`${workspace} served at ${endpointUrl}`, async () => {
          const handed = await api().ok(owner.token, 'POST', `/api/workspaces/${workspace}/handoff`, undefined, 200);
          if (handed.endpointUrl !== endpointUrl) return false;
          const res = await fetch(`${endpointUrl}/api/memory-fragments?workspaceId=${workspace}`, {
            headers: { authorization: `Bearer ${handed.token}` },
          });
          if (res.status !== 200) return false;
          return ((await res.json()) as { items: Array<{ title: string }> }).items.map((f) => f.title);
        });
      const newToken = async () =>
        (await api().ok(owner.token, 'POST', `/api/hosted-zones/${zoneId}/enrollment-token`, undefined, 200))
          .enrollmentToken as string;

      // The first Leaf is gone with its state; a new one (empty database) enrolls with a new token.
      expect(await leaf.stop()).toBe(0);
      const secondDb = await createTestDatabase('kw_hz_leaf2');
      const secondDir = tempDir('kw-hz-leaf2-');
      const secondUrl = `http://127.0.0.1:${await freePort()}`;
      let second: PlatformProcess | undefined;
      try {
        second = await startLeaf({
          PORT: new URL(secondUrl).port,
          PUBLIC_URL: secondUrl,
          DATABASE_URL: secondDb.url,
          DATA_DIR: secondDir,
          CLOUD_URL: cloudUrl,
          ENROLLMENT_TOKEN: await newToken(),
          SECRETS_ENCRYPTION_KEY: LEAF_KEY,
          LEAF_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
          ...UNLIMITED,
        });
        // Served again, with what the new Leaf holds: nothing (the content was only on the first Leaf).
        expect(await servedAt(secondUrl, kept)).toEqual([]);
        expect(await servedAt(secondUrl, workspaceId)).toBeDefined();
        const { workspace } = await api().ok(owner.token, 'GET', `/api/workspaces/${kept}`, undefined, 200);
        expect(workspace.status).toBe('active');
        const placedMeanwhile = await placedWorkspace('Placed on the second Leaf');
        expect(await servedAt(secondUrl, placedMeanwhile)).toEqual([]);

        // The first Leaf (its database kept) enrolled back: it serves them all again, its content included.
        expect(await second.stop()).toBe(0);
        second = undefined;
        zoneToken = await newToken();
        leaf = await startTheLeaf(zoneToken);
        expect(await servedAt(leaf.url, kept)).toEqual(['Held by the first Leaf']);
        expect(await servedAt(leaf.url, placedMeanwhile)).toEqual([]);
        expect(await servedAt(leaf.url, workspaceId)).toBeDefined();
      } finally {
        await second?.stop();
        await secondDb.drop();
        rmSync(secondDir, { recursive: true, force: true });
      }
    }, 180_000);

    it("serves nothing once its zone is deleted, and purges that zone's workspaces when enrolled into another zone; refuses another zone's token while its own zone still counts on it", async () => {
      const marker = `zone-marker-${randomUUID()}`;
      const types = await atLeaf(await handoff(owner.token), 'GET', `/api/workspaces/${workspaceId}/fragment-types`);
      const note = types.body.items.find((t: { key: string }) => t.key === 'note').id;
      const written = await atLeaf(await handoff(owner.token), 'POST', '/api/memory-fragments', {
        workspaceId,
        fragmentTypeId: note,
        title: 'Secret',
        content: `secret content ${marker}`,
      });
      expect(written.status).toBe(201);
      const leafSql = new pg.Client({ connectionString: leafDb.url });
      await leafSql.connect();
      const rowsHoldingMarker = async () => {
        const { rows } = await leafSql.query(
          `SELECT count(*)::int AS n FROM data.fragments AS f WHERE f::text LIKE $1`,
          [`%${marker}%`],
        );
        return rows[0].n as number;
      };
      try {
        expect(await rowsHoldingMarker()).toBe(1);
        const other = await api().ok(owner.token, 'POST', '/api/hosted-zones', { name: 'Other', region: 'x' }, 201);

        // While zone A still counts on this Leaf, another zone's token is refused (exit 2), nothing changed.
        expect(await leaf.stop()).toBe(0);
        await expect(startTheLeaf(other.enrollmentToken)).rejects.toThrow(/exited with 2[\s\S]*another hosted zone/);
        // Nothing changed on the Cloud either: the other zone is not enrolled, its token is not used.
        const untouched = (
          await api().ok(owner.token, 'GET', `/api/hosted-zones/${other.hostedZone.id}`, undefined, 200)
        ).hostedZone;
        expect(untouched).toMatchObject({ status: 'pending', enrolledAt: null, endpointUrl: null });
        leaf = await startTheLeaf(zoneToken);
        await until('the Leaf serving again', async () => (await atLeaf(await handoff(owner.token))).status === 200);

        // Zone A goes, with its (archived) workspaces: the Leaf serves nothing from its next heartbeat.
        const placed = (await api().ok(owner.token, 'GET', `/api/hosted-zones/${zoneId}`, undefined, 200)).hostedZone;
        expect(placed.workspaceCount).toBeGreaterThan(0);
        const accessible = await api().ok(owner.token, 'GET', '/api/workspaces/accessible', undefined, 200);
        const onZone = accessible.items.filter((w: { hostedZoneId: string }) => w.hostedZoneId === zoneId);
        const tokens = await Promise.all(onZone.map((w: { id: string }) => handoff(owner.token, w.id)));
        for (const w of onZone) await api().ok(owner.token, 'DELETE', `/api/workspaces/${w.id}`, undefined, 200);
        const deleted = await api().ok(
          owner.token,
          'DELETE',
          `/api/hosted-zones/${zoneId}?deleteArchivedWorkspaces=true`,
          undefined,
          200,
        );
        expect(deleted.deletedWorkspaceIds).toHaveLength(onZone.length);
        const refused = await until('the Leaf to serve nothing', async () => {
          const res = await atLeaf(tokens[0]);
          return res.status === 401 && /serves no workspace/.test(res.body.error) && res;
        });
        expect(refused.body.code).toBe('UNAUTHENTICATED');
        const h = await health();
        expect(h.status).toBe(503);
        expect(h.body.cloudLink).toMatchObject({ status: 'down', link: 'refused' });
        // Refused, not purged: the data stays until the Leaf is enrolled into another zone.
        expect(await rowsHoldingMarker()).toBe(1);

        // Enrolled into another zone on the same database: zone A's workspaces are purged, none is served.
        expect(await leaf.stop()).toBe(0);
        // The token the refused start was given still works.
        leaf = await startTheLeaf(other.enrollmentToken);
        const enrolled = leaf.logs.find((l) => l.msg === 'leaf enrolled');
        expect(enrolled).toMatchObject({ hostedZoneId: other.hostedZone.id, workspaces: 0 });
        // Each workspace's record goes after its data (fragments, search, webhooks): wait for both.
        const leafWorkspaces = async () => (await leafSql.query('SELECT workspace_id FROM data.leaf_workspaces')).rows;
        await until(
          'the previous zone purged',
          async () => (await rowsHoldingMarker()) === 0 && (await leafWorkspaces()).length === 0,
        );
      } finally {
        await leafSql.end();
      }
    }, 180_000);
  },
);
