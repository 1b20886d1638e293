import { Inject, Injectable } from '@nestjs/common';
import { retryOnConflict, type ControlPrisma } from '@kw/platform-persistence';
import { revokeGrants } from './agent-grants.repository.js';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';

export type TrustedIssuerRow = ControlPrisma.TrustedIssuerModel;

export interface NewTrustedIssuer {
  issuer: string;
  jwksUri: string | null;
  jwks: object | null;
  algorithms: string[];
  allowedClientIds: string[];
}

/** Identity providers added by platform administrators (configured ones are not stored). */
@Injectable()
export class TrustedIssuersRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  list(): Promise<TrustedIssuerRow[]> {
    return this.db.trustedIssuer.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  findByIssuer(issuer: string): Promise<TrustedIssuerRow | null> {
    return this.db.trustedIssuer.findUnique({ where: { issuer } });
  }

  create(issuer: NewTrustedIssuer): Promise<TrustedIssuerRow> {
    return this.db.trustedIssuer.create({ data: { ...issuer, jwks: issuer.jwks ?? undefined } });
  }

  /**
   * Stops trusting an issuer and revokes the live agent grants its assertions made, together;
   * the revoked grant ids, or null when no such issuer was added.
   */
  removeWithGrants(id: string, reason: string, now: Date): Promise<string[] | null> {
    return retryOnConflict(() =>
      this.db.$transaction(async (tx) => {
        const row = await tx.trustedIssuer.findUnique({ where: { id }, select: { issuer: true } });
        const { count } = await tx.trustedIssuer.deleteMany({ where: { id } });
        if (!row || count === 0) return null;
        return revokeGrants(tx, { issuer: row.issuer }, reason, now);
      }),
    );
  }
}
