import { Inject, Injectable } from '@nestjs/common';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';

@Injectable()
export class BetaFeaturesRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  /** The user's switches, keyed by feature. */
  async grantsOf(userId: string): Promise<Map<string, boolean>> {
    const rows = await this.db.betaFeatureGrant.findMany({ where: { userId } });
    return new Map(rows.map((r) => [r.featureKey, r.enabled]));
  }

  async set(userId: string, featureKey: string, enabled: boolean): Promise<void> {
    await this.db.betaFeatureGrant.upsert({
      where: { userId_featureKey: { userId, featureKey } },
      create: { userId, featureKey, enabled },
      update: { enabled },
    });
  }
}
