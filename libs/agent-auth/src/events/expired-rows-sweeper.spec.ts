import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ControlPrismaClient } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { AgentClaimsRepository } from '../persistence/agent-claims.repository.js';
import { AgentGrantsRepository } from '../persistence/agent-grants.repository.js';
import { OAuthApplicationsRepository } from '../persistence/oauth-applications.repository.js';
import { OAuthAuthorizationsRepository } from '../persistence/oauth-authorizations.repository.js';
import { SeenJwtIdsRepository } from '../persistence/seen-jwt-ids.repository.js';
import { ExpiredRowsSweeper, SWEEP_BATCH } from './expired-rows-sweeper.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const later = (ms: number) => new Date(NOW.getTime() + ms);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The sweep that keeps agent authentication's short-lived rows from piling up, on real Postgres:
 * what is past its time goes, what a live credential or an audit still needs stays, and two
 * sweepers at once (two replicas) delete each row once without waiting on each other.
 */
describeWith(['postgres'], 'expired agent authentication rows (real Postgres)', () => {
  let database: MigratedTestDatabase<'control'>;
  let pool: pg.Pool;
  let db: ControlPrismaClient;
  let sweeper: ExpiredRowsSweeper;
  let userId: string;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_agent_auth_sweep', 'control');
    ({ pool, prisma: db } = database);
    const logger = { info: () => undefined, warn: () => undefined };
    sweeper = new ExpiredRowsSweeper(
      new SeenJwtIdsRepository(db, { pool }),
      new AgentGrantsRepository(db, { pool }),
      new AgentClaimsRepository(db),
      new OAuthAuthorizationsRepository(db),
      new OAuthApplicationsRepository(db),
      logger as never,
    );
    userId = (await db.user.create({ data: { email: 'ada@example.com', displayName: 'Ada' } })).id;
  });
  beforeEach(async () => {
    await pool.query(
      `TRUNCATE control.seen_jwt_ids, control.agent_tokens, control.agent_grants, control.agent_claims,
                control.oauth_authorizations, control.oauth_applications`,
    );
  });
  afterAll(() => database?.close());

  const grant = (fields: { revokedAt?: Date; applicationId?: string } = {}) =>
    db.agentGrant.create({
      data: { userId, method: 'identity_assertion', agentName: 'bot', scopes: ['fragments:read'], ...fields },
    });
  const token = (grantId: string, expiresAt: Date, kind = 'access') =>
    db.agentToken.create({ data: { grantId, kind, tokenHash: randomUUID(), expiresAt } });
  const claim = (expiresAt: Date) =>
    db.agentClaim.create({
      data: {
        claimTokenHash: randomUUID(),
        loginHint: 'ada@example.com',
        agentName: 'bot',
        requestedScopes: [],
        expiresAt,
        windowExpiresAt: expiresAt,
        intervalSeconds: 5,
      },
    });
  const application = (fields: { ownerId?: string; lastUsedAt?: Date; createdAt: Date }) =>
    db.oAuthApplication.create({
      data: {
        name: 'client',
        redirectUris: ['https://client.example/cb'],
        clientType: 'public',
        tokenEndpointAuthMethod: 'none',
        scopes: [],
        ...fields,
      },
    });
  const authorization = (applicationId: string, expiresAt: Date) =>
    db.oAuthAuthorization.create({
      data: {
        applicationId,
        redirectUri: 'https://client.example/cb',
        codeChallenge: 'c',
        requestedScopes: [],
        expiresAt,
      },
    });
  const ids = async (table: string, column = 'id') =>
    (await pool.query(`SELECT ${column} AS id FROM control.${table}`)).rows.map((r) => r.id).sort();

  it('forgets what is past its time and keeps what a live credential or reuse detection needs', async () => {
    await db.seenJwtId.createMany({
      data: [
        { issuer: 'https://idp.example', kind: 'assertion', jti: 'old', expiresAt: ago(1000) },
        { issuer: 'https://idp.example', kind: 'assertion', jti: 'live', expiresAt: later(60_000) },
      ],
    });
    const live = await grant();
    const liveAccess = await token(live.id, later(HOUR));
    // A refresh token expired an hour ago still answers "reused" if it comes back: kept a day.
    const recentRefresh = await token(live.id, ago(HOUR), 'refresh');
    await token(live.id, ago(2 * DAY));
    // Revoked two days ago: its expired token goes first, then the grant it left empty.
    const revoked = await grant({ revokedAt: ago(2 * DAY) });
    await token(revoked.id, ago(2 * DAY));
    // Revoked an hour ago: not due yet (a revoked grant is kept a day, as an expired token is).
    const justRevoked = await grant({ revokedAt: ago(HOUR) });
    const keptClaim = await claim(ago(HOUR));
    await claim(ago(2 * DAY));
    // Registered two days ago and never used: goes.
    await application({ createdAt: ago(2 * DAY) });
    const used = await application({ createdAt: ago(2 * DAY), lastUsedAt: ago(DAY) });
    const owned = await application({ createdAt: ago(200 * DAY), ownerId: userId });
    // An unused client whose grant is still live stays: its tokens would lose their client.
    const withGrant = await application({ createdAt: ago(2 * DAY) });
    await grant({ applicationId: withGrant.id });
    const keptRequest = await authorization(owned.id, ago(HOUR));
    await authorization(owned.id, ago(2 * DAY));

    const swept = await sweeper.sweep(NOW);
    expect(swept).toEqual({ jwtIds: 1, grantsAndTokens: 3, claims: 1, authorizations: 1, applications: 1 });
    expect(await ids('seen_jwt_ids', 'jti')).toEqual(['live']);
    expect(await ids('agent_tokens')).toEqual([liveAccess.id, recentRefresh.id].sort());
    expect(await ids('agent_grants')).not.toContain(revoked.id);
    expect(await ids('agent_grants')).toEqual(expect.arrayContaining([live.id, justRevoked.id]));
    expect(await ids('agent_claims')).toEqual([keptClaim.id]);
    expect(await ids('oauth_authorizations')).toEqual([keptRequest.id]);
    expect(await ids('oauth_applications')).toEqual([used.id, owned.id, withGrant.id].sort());

    expect(await sweeper.sweep(NOW)).toEqual({
      jwtIds: 0,
      grantsAndTokens: 0,
      claims: 0,
      authorizations: 0,
      applications: 0,
    });
  });

  it('deletes a backlog in batches of SWEEP_BATCH at most; two sweepers at once delete each row once', async () => {
    const backlog = SWEEP_BATCH + 200;
    await pool.query(
      `INSERT INTO control.seen_jwt_ids (issuer, kind, jti, expires_at)
       SELECT 'https://idp.example', 'assertion', 'j' || n, $1 FROM generate_series(1, $2) AS n`,
      [ago(1000), backlog],
    );
    const [first, second] = await Promise.all([sweeper.sweep(NOW), sweeper.sweep(NOW)]);
    expect(first.jwtIds).toBeLessThanOrEqual(SWEEP_BATCH);
    expect(second.jwtIds).toBeLessThanOrEqual(SWEEP_BATCH);
    const left = (await pool.query('SELECT count(*)::int AS n FROM control.seen_jwt_ids')).rows[0].n;
    expect(first.jwtIds + second.jwtIds + left).toBe(backlog);
    await sweeper.sweep(NOW);
    await sweeper.sweep(NOW);
    expect((await pool.query('SELECT count(*)::int AS n FROM control.seen_jwt_ids')).rows[0].n).toBe(0);
  });
});
