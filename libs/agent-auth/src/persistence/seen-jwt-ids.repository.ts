import { Inject, Injectable } from '@nestjs/common';
import { sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';

/** JWT ids already accepted, per issuer and kind: a second use of one is a replay. */
@Injectable()
export class SeenJwtIdsRepository {
  /** `remember` through plain `pg`: it is on every token exchange (decision 0008). */
  private readonly sql: SqlExecutor;

  constructor(
    @Inject(IDENTITY_DB) private readonly db: IdentityDb,
    @Inject(DATABASE) database: Pick<Database, 'pool'>,
  ) {
    this.sql = sqlStatements(() => database.pool);
  }

  /**
   * Records the jti; false when it was recorded before (a replay). One statement, so two
   * requests racing with the same JWT cannot both pass.
   */
  async remember(issuer: string, kind: 'assertion' | 'event', jti: string, expiresAt: Date): Promise<boolean> {
    const inserted = await this.sql.$executeRaw`INSERT INTO control.seen_jwt_ids (issuer, kind, jti, expires_at)
      VALUES (${issuer}, ${kind}, ${jti}, ${expiresAt}) ON CONFLICT DO NOTHING`;
    return inserted === 1;
  }

  /** Forgets up to `limit` ids past their expiry (a JWT that old is refused by its time claims anyway); how many went. */
  sweepExpired(now: Date, limit: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM control.seen_jwt_ids
      WHERE ctid IN (SELECT ctid FROM control.seen_jwt_ids WHERE expires_at < ${now} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  }

  /** Records that what the JWT carried was acted on: a retry of it is then answered as a success (security events). */
  async markApplied(issuer: string, kind: 'assertion' | 'event', jti: string, at: Date): Promise<void> {
    await this.db.seenJwtId.updateMany({ where: { issuer, kind, jti }, data: { appliedAt: at } });
  }

  /** Whether the JWT with this jti was acted on completely (markApplied). */
  async wasApplied(issuer: string, kind: 'assertion' | 'event', jti: string): Promise<boolean> {
    const row = await this.db.seenJwtId.findUnique({
      where: { issuer_kind_jti: { issuer, kind, jti } },
      select: { appliedAt: true },
    });
    return !!row?.appliedAt;
  }

  /** Forgets a jti whose JWT could not be acted on (a failure on our side), so the sender's retry is not a replay. */
  async forget(issuer: string, kind: 'assertion' | 'event', jti: string): Promise<void> {
    await this.db.seenJwtId.deleteMany({ where: { issuer, kind, jti } });
  }
}
