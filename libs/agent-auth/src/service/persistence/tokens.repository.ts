import { Injectable } from '@nestjs/common';
import { IdentityDatabase } from './identity-database.js';
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

/** Where AuthenticateToken looks tokens up; an interface so tests can count the lookups. */
export interface TokenCredentialStore {
  findByHash(tokenHash: string): Promise<(TokenRow & { user: UserRow }) | null>;
  recordUse(tokenId: string, ip: string, at: Date): Promise<void>;
}

/** Personal access tokens and their daily usage. Only hashes of secrets are ever stored. */
@Injectable()
export class TokensRepository implements TokenCredentialStore {
  constructor(private readonly db: IdentityDatabase) {}

  findByHash(tokenHash: string): Promise<(TokenRow & { user: UserRow }) | null> {
    return this.db.client.personalAccessToken.findUnique({ where: { tokenHash }, include: { user: true } });
  }

  /** A token of this user that is not revoked (expired ones are still shown, with expiresAt). */
  findOwned(id: string, userId: string): Promise<TokenRow | null> {
    return this.db.client.personalAccessToken.findFirst({ where: { id, userId, revokedAt: null } });
  }

  listOwned(userId: string): Promise<TokenRow[]> {
    return this.db.client.personalAccessToken.findMany({ where: { userId, revokedAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
  }

  create(token: NewToken): Promise<TokenRow> {
    return this.db.client.personalAccessToken.create({ data: token });
  }

  update(id: string, changes: TokenChanges): Promise<TokenRow> {
    return this.db.client.personalAccessToken.update({ where: { id }, data: changes });
  }

  async revoke(id: string, userId: string, at: Date): Promise<boolean> {
    const { count } = await this.db.client.personalAccessToken.updateMany({ where: { id, userId, revokedAt: null }, data: { revokedAt: at } });
    return count > 0;
  }

  /** Last use and the per-UTC-day counter, in one short transaction. */
  async recordUse(tokenId: string, ip: string, at: Date): Promise<void> {
    const day = at.toISOString().slice(0, 10);
    await this.db.client.$transaction([
      this.db.client.personalAccessToken.update({ where: { id: tokenId }, data: { lastUsedAt: at, lastUsedIp: ip || null } }),
      // An upsert that stays correct when two requests of the same token race.
      this.db.client.$executeRaw`INSERT INTO control.token_usage_daily (token_id, day, requests) VALUES (${tokenId}::uuid, ${day}::date, 1)
        ON CONFLICT (token_id, day) DO UPDATE SET requests = control.token_usage_daily.requests + 1`,
    ]);
  }

  /** Requests per UTC day from `since` (inclusive), keyed YYYY-MM-DD. */
  async usageSince(tokenId: string, since: Date): Promise<Map<string, number>> {
    const rows = await this.db.client.tokenUsageDaily.findMany({ where: { tokenId, day: { gte: since } } });
    return new Map(rows.map((r) => [r.day.toISOString().slice(0, 10), r.requests]));
  }

  async totalRequests(tokenId: string): Promise<number> {
    const { _sum } = await this.db.client.tokenUsageDaily.aggregate({ where: { tokenId }, _sum: { requests: true } });
    return _sum.requests ?? 0;
  }
}
