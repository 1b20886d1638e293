import { Inject, Injectable } from '@nestjs/common';
import {
  lockUntilCommit,
  retryOnConflict,
  sqlStatements,
  sqlTransaction,
  type ControlPrisma,
  type Database,
  type SqlExecutor,
} from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { UserRow } from './rows.js';
import { assertCallerWaiting } from '@kw/platform-transport';

export type AgentGrantRow = ControlPrisma.AgentGrantModel;
export type AgentTokenRow = ControlPrisma.AgentTokenModel;

export interface NewAgentGrant {
  userId: string;
  method: 'identity_assertion' | 'service_auth' | 'authorization_code';
  agentName: string;
  issuer: string | null;
  subject: string | null;
  scopes: string[];
  allWorkspaces: boolean;
  workspaceIds: string[];
  applicationId?: string | null;
  audience?: string | null;
}

/** What is stored of a freshly minted token pair (the secrets themselves never are). */
export interface NewTokenPair {
  accessHash: string;
  accessExpiresAt: Date;
  refreshHash: string;
  refreshExpiresAt: Date;
  /** The access token's own scopes, narrower than its grant's (a refresh's `scope`); absent: the grant's. */
  accessScopes?: string[];
}

const DAY_MS = 86_400_000;

export type AccessTokenFound = AgentTokenRow & { grant: AgentGrantRow & { user: UserRow } };

/** The outcome of presenting a refresh token. */
export type RefreshOutcome =
  | { kind: 'rotated'; grant: AgentGrantRow; accessScopes: string[] }
  /** Already exchanged once: the family was revoked just now. */
  | { kind: 'reused'; grantId: string }
  | { kind: 'invalid' };

/** What an identity provider's assertion vouches for, checked again where its grant is stored. */
export interface Vouched {
  /** Added by an administrator (a stored row, which may be removed meanwhile); configured ones are not stored. */
  stored: boolean;
  /** The assertion's `iat`. */
  issuedAt: Date;
}

/** Why an assertion's grant was not stored: its provider was removed, or revoked its assertions, meanwhile. */
export type ExchangeRefusal = 'untrusted' | 'revoked';

/**
 * Advisory-lock keys of the revocation sweeps: an exchange holds them shared while it stores
 * its grant, a sweep by account or by subject exclusively while it revokes, so each sees the other.
 */
const accountKey = (userId: string) => `agent-grants-of-user:${userId}`;
const subjectKey = (issuer: string, subject: string) => `agent-grants-of-subject:${issuer} ${subject}`;

/** Agent grants and their tokens (one family per grant). Only hashes of secrets are stored. */
@Injectable()
export class AgentGrantsRepository {
  /** The token exchange's write through plain `pg`: one statement where Prisma made four calls (decision 0008). */
  private readonly sql: SqlExecutor;

  constructor(
    @Inject(IDENTITY_DB) private readonly db: IdentityDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {
    this.sql = sqlStatements(() => database.pool);
  }

  /**
   * The grant of an identity provider's assertion and its first token pair, unless the provider
   * was removed or revoked the assertion's account or subject (a security event) since the
   * assertion was verified. Checked in the transaction that stores it, after taking what the
   * removal (the provider's row) and the sweeps (the advisory keys) take exclusively: a removal
   * or sweep either waits for this grant and revokes it, or is seen here and nothing is stored.
   */
  async createVouchedWithTokens(
    grant: NewAgentGrant & { issuer: string; subject: string },
    vouched: Vouched,
    tokens: NewTokenPair,
  ): Promise<{ id: string } | { refused: ExchangeRefusal }> {
    return retryOnConflict(() =>
      sqlTransaction(this.database.pool, async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtextextended(${accountKey(grant.userId)}, 0)),
        pg_advisory_xact_lock_shared(hashtextextended(${subjectKey(grant.issuer, grant.subject)}, 0))`;
        if (vouched.stored) {
          const trusted = await tx.$queryRaw<unknown[]>`
          SELECT 1 FROM control.trusted_issuers WHERE issuer = ${grant.issuer} FOR KEY SHARE`;
          if (trusted.length === 0) return { refused: 'untrusted' as const };
        }
        const revoked = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM control.agent_grant_revocations
        WHERE issuer = ${grant.issuer} AND (user_id = ${grant.userId}::uuid OR subject = ${grant.subject})
          AND issued_before >= ${vouched.issuedAt}::timestamptz
        LIMIT 1`;
        if (revoked.length > 0) return { refused: 'revoked' as const };
        return { id: await insertGrantStatement(tx, grant, tokens) };
      }),
    );
  }

  /**
   * Forgets up to `limit` tokens expired for a day (a refresh token's row must outlive its use
   * for reuse detection, which its expiry bounds), then up to `limit` revoked grants with no
   * token left, then up to `limit` revocation records a day old; how many rows went. Rows another sweeper holds are skipped, not waited for.
   */
  async sweepExpired(now: Date, limit: number): Promise<number> {
    const before = new Date(now.getTime() - DAY_MS);
    const tokens = await this.db.$executeRaw`DELETE FROM control.agent_tokens WHERE id IN (
      SELECT id FROM control.agent_tokens WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
    const grants = await this.db.$executeRaw`DELETE FROM control.agent_grants g WHERE g.id IN (
      SELECT id FROM control.agent_grants WHERE revoked_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM control.agent_tokens t WHERE t.grant_id = agent_grants.id)
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
    return tokens + grants + (await this.sweepRevocations(now, limit));
  }

  /** Old revocation records: none is needed once every assertion it refuses is too old to be accepted. */
  private sweepRevocations(now: Date, limit: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM control.agent_grant_revocations WHERE id IN (
      SELECT id FROM control.agent_grant_revocations WHERE created_at < ${new Date(now.getTime() - DAY_MS)}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  }

  findAccessByHash(tokenHash: string): Promise<AccessTokenFound | null> {
    return this.db.agentToken.findUnique({
      where: { tokenHash },
      include: { grant: { include: { user: true } } },
    }) as Promise<AccessTokenFound | null>;
  }

  /**
   * Exchanges a refresh token for a new pair (rotation): the old one is marked used in the
   * same transaction that stores the new pair. A refresh token used a second time means it
   * leaked (RFC 9700 §4.14.2): the whole grant is revoked.
   */
  async rotate(
    refreshHash: string,
    next: NewTokenPair,
    now: Date,
    /**
     * Checks the request against the grant and its account (as it is now) before anything
     * changes (throwing leaves the token unused) and answers the new access token's scopes.
     */
    accept: (grant: AgentGrantRow, account: { active: boolean }) => string[],
  ): Promise<RefreshOutcome> {
    return retryOnConflict(() =>
      this.db.$transaction(async (tx) => {
        // The grant's row first, as every revocation takes it (grant, then its tokens): concurrent
        // uses of one refresh token wait here one after another instead of deadlocking on the
        // token and grant rows taken in opposite orders. Read after it, the token is current.
        await tx.$queryRaw`SELECT g.id FROM control.agent_grants g
        JOIN control.agent_tokens t ON t.grant_id = g.id
        WHERE t.token_hash = ${refreshHash} FOR NO KEY UPDATE OF g`;
        const token = await tx.agentToken.findUnique({
          where: { tokenHash: refreshHash },
          include: { grant: { include: { user: { select: { status: true } } } } },
        });
        if (!token || token.kind !== 'refresh' || token.revokedAt || token.grant.revokedAt || token.expiresAt <= now)
          return { kind: 'invalid' } as const;
        const { user, ...grant } = token.grant;
        const accessScopes = accept(grant, { active: user.status === 'active' });
        const { count } = await tx.agentToken.updateMany({
          where: { id: token.id, usedAt: null },
          data: { usedAt: now },
        });
        if (count === 0) {
          await revokeGrants(tx, { id: token.grantId }, 'refresh token reused', now);
          return { kind: 'reused', grantId: token.grantId } as const;
        }
        // A subset of the grant's: stored only when it leaves some out (empty reads as the grant's).
        const narrower = accessScopes.length < grant.scopes.length ? accessScopes : undefined;
        await tx.agentToken.createMany({ data: tokenRows(token.grantId, { ...next, accessScopes: narrower }) });
        // A caller that got 504 retries with the same refresh token: rotated now, the retry
        // would read as reuse and revoke the grant. Rolled back instead, the retry rotates.
        assertCallerWaiting();
        return { kind: 'rotated', grant, accessScopes } as const;
      }),
    );
  }

  /** The grant a refresh token belongs to, whatever the token's state. */
  async grantOfRefreshToken(refreshHash: string): Promise<AgentGrantRow | null> {
    const token = await this.db.agentToken.findUnique({ where: { tokenHash: refreshHash }, include: { grant: true } });
    return token?.kind === 'refresh' ? token.grant : null;
  }

  /** Revokes one token (RFC 7009 for an access token); its grant id when it existed and was live. */
  async revokeToken(tokenHash: string, now: Date): Promise<AgentTokenRow | null> {
    const token = await this.db.agentToken.findUnique({ where: { tokenHash } });
    if (!token || token.revokedAt) return null;
    await this.db.agentToken.update({ where: { id: token.id }, data: { revokedAt: now } });
    return token;
  }

  /** Revokes a grant and every token of it; true when it was live. */
  async revokeGrant(id: string, reason: string, now: Date, userId?: string): Promise<boolean> {
    const ids = await revokeGrants(this.db, { id, ...(userId ? { userId } : {}) }, reason, now);
    return ids.length > 0;
  }

  /** Revokes every live grant of a user (under the account's sweep key); the grant ids revoked. */
  revokeUserGrants(userId: string, reason: string, now: Date): Promise<string[]> {
    return this.sweep(accountKey(userId), { userId }, reason, now);
  }

  /**
   * Revokes, under the account's sweep key, the live grants an identity provider's assertions
   * made for the account; with `issuedBefore`, also records that its assertions about the
   * account issued until then make no grant any more (one being exchanged now included).
   */
  revokeIssuerGrantsOfUser(
    userId: string,
    issuer: string,
    reason: string,
    now: Date,
    issuedBefore?: Date,
  ): Promise<string[]> {
    const recorded = issuedBefore && { issuer, userId, issuedBefore };
    return this.sweep(accountKey(userId), { userId, issuer }, reason, now, recorded);
  }

  /** As revokeIssuerGrantsOfUser, for the grants bound to an identity provider's subject. */
  revokeSubjectGrants(
    issuer: string,
    subject: string,
    reason: string,
    now: Date,
    issuedBefore?: Date,
  ): Promise<string[]> {
    const recorded = issuedBefore && { issuer, subject, issuedBefore };
    return this.sweep(subjectKey(issuer, subject), { issuer, subject }, reason, now, recorded);
  }

  /**
   * One revocation sweep: holds `key` exclusively (exchanges hold it shared), records the
   * revocation watermark when there is one, and revokes the live grants `where` selects.
   */
  private sweep(
    key: string,
    where: ControlPrisma.AgentGrantWhereInput,
    reason: string,
    now: Date,
    recorded?: { issuer: string; userId?: string; subject?: string; issuedBefore: Date },
  ): Promise<string[]> {
    return retryOnConflict(() =>
      this.db.$transaction(async (tx) => {
        await lockUntilCommit(tx, key);
        if (recorded) await tx.agentGrantRevocation.create({ data: { ...recorded, createdAt: now } });
        return revokeGrants(tx, where, reason, now);
      }),
    );
  }

  /** The user bound to an identity provider's subject by its most recent grant, if any. */
  async userOfSubject(issuer: string, subject: string): Promise<string | null> {
    const grant = await this.db.agentGrant.findFirst({
      where: { issuer, subject },
      orderBy: { createdAt: 'desc' },
      select: { userId: true },
    });
    return grant?.userId ?? null;
  }

  /** The ids of the live grants made through an application. */
  async liveIdsOfApplication(applicationId: string): Promise<string[]> {
    const rows = await this.db.agentGrant.findMany({ where: { applicationId, revokedAt: null }, select: { id: true } });
    return rows.map((g) => g.id);
  }

  findLive(id: string, userId: string): Promise<AgentGrantRow | null> {
    return this.db.agentGrant.findFirst({ where: { id, userId, revokedAt: null } });
  }

  listLive(userId: string): Promise<AgentGrantRow[]> {
    return this.db.agentGrant.findMany({
      where: { userId, revokedAt: null },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  async touch(grantId: string, at: Date): Promise<void> {
    await this.db.agentGrant.updateMany({
      where: { id: grantId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
      data: { lastUsedAt: at },
    });
  }
}

/** The statement storing a grant and its first token pair, on a pool or in a transaction; the grant's id. */
async function insertGrantStatement(sql: SqlExecutor, grant: NewAgentGrant, tokens: NewTokenPair): Promise<string> {
  const [row] = await sql.$queryRaw<Array<{ id: string }>>`
    WITH g AS (
      INSERT INTO control.agent_grants
        (user_id, method, agent_name, issuer, subject, scopes, all_workspaces, workspace_ids, application_id, audience)
      VALUES (${grant.userId}::uuid, ${grant.method}, ${grant.agentName}, ${grant.issuer}, ${grant.subject},
              ${grant.scopes}::text[], ${grant.allWorkspaces}, ${grant.workspaceIds}::uuid[],
              ${grant.applicationId ?? null}::uuid, ${grant.audience ?? null})
      RETURNING id
    ), pair AS (
      INSERT INTO control.agent_tokens (grant_id, kind, token_hash, expires_at)
      SELECT g.id, t.kind, t.token_hash, t.expires_at FROM g, (VALUES
        ('access', ${tokens.accessHash}, ${tokens.accessExpiresAt}::timestamptz),
        ('refresh', ${tokens.refreshHash}, ${tokens.refreshExpiresAt}::timestamptz)) AS t (kind, token_hash, expires_at)
    )
    SELECT id FROM g`;
  return row.id;
}

/** Inserts a grant and its token pair with the caller's transaction client. */
export async function insertGrant(
  tx: Pick<IdentityDb, 'agentGrant' | 'agentToken'>,
  grant: NewAgentGrant,
  tokens: NewTokenPair,
): Promise<AgentGrantRow> {
  const row = await tx.agentGrant.create({ data: grant });
  await tx.agentToken.createMany({ data: tokenRows(row.id, tokens) });
  return row;
}

function tokenRows(grantId: string, tokens: NewTokenPair) {
  return [
    {
      grantId,
      kind: 'access',
      tokenHash: tokens.accessHash,
      expiresAt: tokens.accessExpiresAt,
      scopes: tokens.accessScopes ?? [],
    },
    { grantId, kind: 'refresh', tokenHash: tokens.refreshHash, expiresAt: tokens.refreshExpiresAt },
  ];
}

type GrantClient = Pick<IdentityDb, 'agentGrant' | 'agentToken'>;

/** Revokes the live grants `where` selects and their tokens, with the caller's client (a transaction's too); their ids. */
export async function revokeGrants(
  db: GrantClient,
  where: ControlPrisma.AgentGrantWhereInput,
  reason: string,
  now: Date,
): Promise<string[]> {
  const live = await db.agentGrant.findMany({ where: { ...where, revokedAt: null }, select: { id: true } });
  const ids = live.map((g) => g.id);
  if (ids.length === 0) return [];
  await db.agentGrant.updateMany({ where: { id: { in: ids } }, data: { revokedAt: now, revokedReason: reason } });
  await db.agentToken.updateMany({ where: { grantId: { in: ids }, revokedAt: null }, data: { revokedAt: now } });
  return ids;
}
