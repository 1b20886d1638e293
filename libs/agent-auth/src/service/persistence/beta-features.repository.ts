import { Injectable } from '@nestjs/common';
import { IdentityDatabase } from './identity-database.js';

@Injectable()
export class BetaFeaturesRepository {
  constructor(private readonly db: IdentityDatabase) {}

  /** The user's switches, keyed by feature. */
  async grantsOf(userId: string): Promise<Map<string, boolean>> {
    const rows = await this.db.client.betaFeatureGrant.findMany({ where: { userId } });
    return new Map(rows.map((r) => [r.featureKey, r.enabled]));
  }

  async set(userId: string, featureKey: string, enabled: boolean): Promise<void> {
    await this.db.client.betaFeatureGrant.upsert({
      where: { userId_featureKey: { userId, featureKey } },
      create: { userId, featureKey, enabled },
      update: { enabled },
    });
  }
}
