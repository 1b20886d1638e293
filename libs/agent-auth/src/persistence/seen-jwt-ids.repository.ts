import { Inject, Injectable } from '@nestjs/common';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';

/** JWT ids already accepted, per issuer and kind: a second use of one is a replay. */
@Injectable()
export class SeenJwtIdsRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  /**
   * Records the jti; false when it was recorded before (a replay). One statement, so two
   * requests racing with the same JWT cannot both pass. Ids past their expiry are forgotten
   * on the way (a JWT that old is refused by its exp anyway).
   */
  async remember(
    issuer: string,
    kind: 'assertion' | 'event',
    jti: string,
    expiresAt: Date,
    now: Date,
  ): Promise<boolean> {
    const inserted = await this.db.$executeRaw`INSERT INTO control.seen_jwt_ids (issuer, kind, jti, expires_at)
      VALUES (${issuer}, ${kind}, ${jti}, ${expiresAt}) ON CONFLICT DO NOTHING`;
    await this.db.$executeRaw`DELETE FROM control.seen_jwt_ids
      WHERE ctid IN (SELECT ctid FROM control.seen_jwt_ids WHERE expires_at < ${now} LIMIT 100)`;
    return inserted === 1;
  }

  /** Forgets a jti whose JWT could not be acted on (a failure on our side), so the sender's retry is not a replay. */
  async forget(issuer: string, kind: 'assertion' | 'event', jti: string): Promise<void> {
    await this.db.seenJwtId.deleteMany({ where: { issuer, kind, jti } });
  }
}
