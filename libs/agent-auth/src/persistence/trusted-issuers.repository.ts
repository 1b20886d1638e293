import { Inject, Injectable } from '@nestjs/common';
import type { ControlPrisma } from '@kw/platform-persistence';
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

  async remove(id: string): Promise<boolean> {
    const { count } = await this.db.trustedIssuer.deleteMany({ where: { id } });
    return count > 0;
  }
}
