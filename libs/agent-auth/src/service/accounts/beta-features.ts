import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ListBetaFeaturesResponseSchema, UpdateBetaFeatureRequest } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { CallerAccounts } from '../caller-accounts.js';
import { BetaFeaturesRepository } from '../../persistence/beta-features.repository.js';

/** The beta features a user can switch on; documented in docs/authentication.md. Off unless granted. */
export const BETA_FEATURES: readonly { featureKey: string; description: string }[] = [
  {
    featureKey: 'agentic-search',
    description: 'AI-oriented discovery over memory fragments (POST /api/fragments/agentic-search)',
  },
  { featureKey: 'graph-explorer', description: 'Interactive exploration of the knowledge graph of a workspace' },
  {
    featureKey: 'embed-host-events',
    description: 'Embedded chat delivers feedback and events to the host page with postMessage',
  },
];

type FeatureList = Pick<MessageInitShape<typeof ListBetaFeaturesResponseSchema>, 'features'>;

/** ListBetaFeatures / UpdateBetaFeature: the caller's own switches (profile scopes). */
@Injectable()
export class BetaFeatures {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly grants: BetaFeaturesRepository,
  ) {}

  async list(context: RequestContext): Promise<FeatureList> {
    const { user } = await this.callers.require(context, 'profile:read');
    return this.describe(user.id);
  }

  async update(input: UpdateBetaFeatureRequest, context: RequestContext): Promise<FeatureList> {
    const { user } = await this.callers.require(context, 'profile:write');
    if (!BETA_FEATURES.some((f) => f.featureKey === input.featureKey)) {
      const problem = `unknown feature; known features are ${BETA_FEATURES.map((f) => f.featureKey).join(', ')}`;
      throw new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: `featureKey: ${problem}`,
        details: { fields: [{ field: 'featureKey', problems: [problem] }] },
        param: 'featureKey',
      });
    }
    await this.grants.set(user.id, input.featureKey, input.enabled);
    return this.describe(user.id);
  }

  private async describe(userId: string): Promise<FeatureList> {
    const granted = await this.grants.grantsOf(userId);
    return { features: BETA_FEATURES.map((f) => ({ ...f, enabled: granted.get(f.featureKey) ?? false })) };
  }
}
