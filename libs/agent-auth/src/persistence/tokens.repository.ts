import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import type { TokenUse } from '@kw/platform-token-cache';
import type { TokenRow, UserRow } from './rows.js';

export interface NewToken {
  userId: string;
  name: string;
  tokenHash: string;
  displayPrefix: string;
  scopes: string[];
  allWorkspaces: boolean;
  workspaceIds: string[];
  expiresAt: Date | null;
}

export interface TokenChanges {
  name?: string;
  expiresAt?: Date | null;
  scopes?: string[];
  allWorkspaces?: boolean;
  workspaceIds?: string[];
}

/** A token's uses gathered since the last write: the latest one and the count per UTC day (YYYY-MM-DD). */
export type { TokenUse };

/** Where AuthenticateToken looks tokens up; an interface so tests can count the lookups. */
export interface TokenCredentialStore {
  findByHash(tokenHash: string): Promise<(TokenRow & { user: UserRow }) | null>;
  recordUses(tokenId: string, use: TokenUse): Promise<void>;
}

const TOKEN_WITH_USER = `
  SELECT t.id::text AS id, t.user_id::text AS "userId", t.name, t.display_prefix AS "displayPrefix",
         t.token_hash AS "tokenHash", t.scopes, t.all_workspaces AS "allWorkspaces",
         t.workspace_ids::text[] AS "workspaceIds", t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
         t.last_used_at AS "lastUsedAt", t.last_used_ip AS "lastUsedIp", t.created_at AS "createdAt",
         t.updated_at AS "updatedAt", u.email AS "userEmail", u.display_name AS "userDisplayName",
         u.password_hash AS "userPasswordHash", u.status AS "userStatus", u.platform_admin AS "userPlatformAdmin",
         u.created_at AS "userCreatedAt", u.updated_at AS "userUpdatedAt"
    FROM control.personal_access_tokens t JOIN control.users u ON u.id = t.user_id
   WHERE t.token_hash = $1`;

type TokenWithUserRow = TokenRow & {
  userEmail: string;
  userDisplayName: string;
  userPasswordHash: string | null;
  userStatus: string;
  userPlatformAdmin: boolean;
  userCreatedAt: Date;
  userUpdatedAt: Date;
};

function tokenWithUser(row: TokenWithUserRow): TokenRow & { user: UserRow } {
  const {
    userEmail,
    userDisplayName,
    userPasswordHash,
    userStatus,
    userPlatformAdmin,
    userCreatedAt,
    userUpdatedAt,
    ...token
  } = row;
  return {
    ...token,
    user: {
      id: token.userId,
      email: userEmail,
      displayName: userDisplayName,
      passwordHash: userPasswordHash,
      status: userStatus,
      platformAdmin: userPlatformAdmin,
      createdAt: userCreatedAt,
      updatedAt: userUpdatedAt,
    },
  };
}

/** Personal access tokens and their daily usage. Only hashes of secrets are ever stored. */
@Injectable()
export class TokensRepository implements TokenCredentialStore {
  constructor(
    @Inject(IDENTITY_DB) private readonly db: IdentityDb,
    /** The process's pool (never null here: IDENTITY_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /**
   * The token and its user in one statement (decision 0008): asked by every request whose token
   * the gateway's cache does not hold, and by every embed turn on a key's scoped token; Prisma's
   * include cost two queries and their plans.
   */
  async findByHash(tokenHash: string): Promise<(TokenRow & { user: UserRow }) | null> {
    const { rows } = await this.database.pool.query<TokenWithUserRow>(TOKEN_WITH_USER, [tokenHash]);
    return rows[0] ? tokenWithUser(rows[0]) : null;
  }

  /** A token of this user that is not revoked (expired ones are still shown, with expiresAt). */
  findOwned(id: string, userId: string): Promise<TokenRow | null> {
    return this.db.personalAccessToken.findFirst({ where: { id, userId, revokedAt: null } });
  }

  listOwned(userId: string): Promise<TokenRow[]> {
    return this.db.personalAccessToken.findMany({
      where: { userId, revokedAt: null },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  create(token: NewToken): Promise<TokenRow> {
    return this.db.personalAccessToken.create({ data: token });
  }

  update(id: string, changes: TokenChanges): Promise<TokenRow> {
    return this.db.personalAccessToken.update({ where: { id }, data: changes });
  }

  async revoke(id: string, userId: string, at: Date): Promise<boolean> {
    const { count } = await this.db.personalAccessToken.updateMany({
      where: { id, userId, revokedAt: null },
      data: { revokedAt: at },
    });
    return count > 0;
  }

  /** Last use and the per-UTC-day counters of a batch of uses, in one short transaction. */
  async recordUses(tokenId: string, use: TokenUse): Promise<void> {
    const days = [...use.requestsPerDay.keys()];
    const counts = days.map((d) => use.requestsPerDay.get(d)!);
    await this.db.$transaction([
      // Never moves the last use backwards (two replicas may write out of order).
      this.db.personalAccessToken.updateMany({
        where: { id: tokenId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: use.lastAt } }] },
        data: { lastUsedAt: use.lastAt, lastUsedIp: use.lastIp || null },
      }),
      // An upsert that stays correct when two replicas write the same token and day.
      this.db.$executeRaw`INSERT INTO control.token_usage_daily (token_id, day, requests)
        SELECT ${tokenId}::uuid, d::date, n FROM unnest(${days}::text[], ${counts}::int[]) AS u(d, n)
        ON CONFLICT (token_id, day) DO UPDATE SET requests = control.token_usage_daily.requests + EXCLUDED.requests`,
    ]);
  }

  /** Requests per UTC day from `since` (inclusive), keyed YYYY-MM-DD. */
  async usageSince(tokenId: string, since: Date): Promise<Map<string, number>> {
    const rows = await this.db.tokenUsageDaily.findMany({ where: { tokenId, day: { gte: since } } });
    return new Map(rows.map((r) => [r.day.toISOString().slice(0, 10), r.requests]));
  }

  async totalRequests(tokenId: string): Promise<number> {
    const { _sum } = await this.db.tokenUsageDaily.aggregate({ where: { tokenId }, _sum: { requests: true } });
    return _sum.requests ?? 0;
  }
}
