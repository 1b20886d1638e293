import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { poll } from '../../support/hosted-zones.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

// No Leaf answers there: the test plays the Leaf's side with raw requests (https, as placement requires).
const LEAF_ENDPOINT = 'https://127.0.0.1:9/leaf';

/**
 * A public Leaf workspace made private while a non-member is being given a handoff token
 * (docs/hosted-zones.md#revocation): the token must be refused at the Leaf (a revocation in the
 * zone's heartbeat) or not given at all. The race is made certain with a row lock the test holds:
 * the reader's earlier issuance row, expired (so it is no live token the make-private would
 * revoke), locked FOR UPDATE, so the new handoff waits on it after it was authorized against the
 * public workspace; the make-private is sent meanwhile, then the lock is let go.
 */
describeWith(['postgres'], 'making a Leaf workspace private while a reader gets a handoff token', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-private-handoff-');
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: pg.Client;
  let platform: PlatformProcess;

  beforeAll(async () => {
    db = await createTestDatabase('kw_private_handoff');
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    platform = await startEmbedded(dataDir, { DATABASE_URL: db.url, ...admin });
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await sql?.end();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("revokes the reader's token noted before the change, and gives none once it committed", async () => {
    const api = workspacesApi(platform.url);
    const owner = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const reader = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const leaf = async (path: string, credential: string | undefined, body: unknown = {}) => {
      const res = await fetch(`${platform.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(credential && { authorization: `Bearer ${credential}` }) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    };
    const created = await api.ok(owner.token, 'POST', '/api/hosted-zones', { name: 'Readers', region: 'eu' }, 201);
    const zoneId = created.hostedZone.id;
    const enrolled = await leaf('/api/hosted-zones/enroll', undefined, {
      enrollmentToken: created.enrollmentToken,
      endpointUrl: LEAF_ENDPOINT,
      leafVersion: 'test',
    });
    expect(enrolled.status).toBe(200);
    const credential = enrolled.body.zoneCredential as string;
    const { workspace } = await api.ok(
      owner.token,
      'POST',
      '/api/workspaces',
      { name: 'Public on the Leaf', hostedZoneId: zoneId, visibility: 'public' },
      201,
    );
    expect((await leaf(`/api/hosted-zones/placements/${workspace.id}/ready`, credential)).status).toBe(200);

    // The reader read it once, long ago: its issuance row is there, expired.
    await api.ok(reader.token, 'POST', `/api/workspaces/${workspace.id}/handoff`, undefined, 200);
    await sql.query(`UPDATE control.handoff_issuances SET expires_at = now() - interval '1 day' WHERE user_id = $1`, [
      reader.user.id,
    ]);
    const holder = new pg.Client({ connectionString: db.url });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    const held = await holder.query('SELECT 1 FROM control.handoff_issuances WHERE user_id = $1 FOR UPDATE', [
      reader.user.id,
    ]);
    expect(held.rowCount).toBe(1);
    const waiting = async () =>
      (
        await sql.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows[0].n as number;

    let handoffAnswered = false;
    const handoff = api
      .call(reader.token, 'POST', `/api/workspaces/${workspace.id}/handoff`)
      .finally(() => (handoffAnswered = true));
    await poll('the handoff waiting on the held row', async () => handoffAnswered || (await waiting()) >= 1);
    expect(handoffAnswered).toBe(false);
    let privateAnswered = false;
    const madePrivate = api
      .call(owner.token, 'PATCH', `/api/workspaces/${workspace.id}`, { visibility: 'private' })
      .finally(() => (privateAnswered = true));
    await poll('the make-private answered or waiting', async () => privateAnswered || (await waiting()) >= 2);
    await holder.query('ROLLBACK');
    await holder.end();
    expect((await madePrivate).status).toBe(200);
    const issued = await handoff;

    // The handoff was noted first (it waited with the workspace held): it is given, and the
    // make-private that came after it revokes it at the Leaf.
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const heartbeat = await leaf('/api/hosted-zones/heartbeat', credential);
    expect(heartbeat.status).toBe(200);
    const iat = JSON.parse(Buffer.from(issued.body.token.split('.')[1], 'base64url').toString()).iat as number;
    const entry = heartbeat.body.revocations.find(
      (r: any) => r.userId === reader.user.id && r.workspaceId === workspace.id,
    );
    expect(entry, JSON.stringify(heartbeat.body.revocations)).toBeDefined();
    expect(Date.parse(entry.revokedAt) / 1000 + 1).toBeGreaterThanOrEqual(iat);
    expect((await api.call(reader.token, 'POST', `/api/workspaces/${workspace.id}/handoff`)).status).toBe(404);

    // The other order: the change to private commits while a handoff authorized against the
    // public workspace is being noted (the test's own transaction makes it private and holds the
    // row): the handoff is refused as for a private workspace, no token given.
    await api.ok(owner.token, 'PATCH', `/api/workspaces/${workspace.id}`, { visibility: 'public' }, 200);
    expect((await api.call(reader.token, 'POST', `/api/workspaces/${workspace.id}/handoff`)).status).toBe(200);
    const changer = new pg.Client({ connectionString: db.url });
    changer.on('error', () => undefined);
    await changer.connect();
    await changer.query('BEGIN');
    await changer.query(`UPDATE control.workspaces SET visibility = 'private' WHERE id = $1`, [workspace.id]);
    let lateAnswered = false;
    const late = api
      .call(reader.token, 'POST', `/api/workspaces/${workspace.id}/handoff`)
      .finally(() => (lateAnswered = true));
    await poll('the handoff answered or waiting on the workspace', async () => lateAnswered || (await waiting()) >= 1);
    await changer.query('COMMIT');
    await changer.end();
    const refused = await late;
    expect(refused.status, JSON.stringify(refused.body)).toBe(404);
  }, 120_000);
});
