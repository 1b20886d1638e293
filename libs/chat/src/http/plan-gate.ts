import { Injectable } from '@nestjs/common';
import { PlansService, type GetEntitlementsResponse } from '@kw/contracts';
import { PerAccountCache, planLimitError } from '@kw/platform-entitlements';
import { AppError } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';

/** An account's entitlements are asked at most this often per account (a budget may overshoot by this much). */
const CACHE_MS = 5_000;

/**
 * The plan check of model calls (docs/plans.md): the model must be one the plan allows, and the
 * month's token (chat) or image budget must not be spent. Entitlements come from the chat service
 * (PlansService), cached per account for five seconds, so a model call costs no extra hop most of
 * the time; a budget exhausted within those seconds lets a few calls through.
 */
@Injectable()
export class PlanGate {
  private readonly cache = new PerAccountCache<GetEntitlementsResponse>(CACHE_MS);

  constructor(private readonly client: ServiceClient) {}

  async check(userId: string, modelId: string, kind: 'chat' | 'image'): Promise<void> {
    const entitlements = await this.entitlementsOf(userId);
    if (!entitlements.allModels && !entitlements.models.includes(modelId))
      throw new AppError({
        status: 403,
        code: 'PLAN_MODEL_NOT_ALLOWED',
        message: `Your plan (${entitlements.planId}) does not include the model ${modelId}`,
        param: 'model',
      });
    const remaining = kind === 'chat' ? entitlements.tokensRemaining : entitlements.imagesRemaining;
    if (remaining !== undefined && remaining <= 0)
      throw planLimitError(
        kind === 'chat' ? 'monthlyTokens' : 'monthlyImages',
        `Your plan's monthly ${kind === 'chat' ? 'token' : 'image'} budget is spent; it resets at ${entitlements.resetsAt}`,
        { resetsAt: entitlements.resetsAt },
      );
  }

  /** The model ids the caller's plan includes; undefined: every model of the deployment. */
  async allowedModels(userId: string): Promise<ReadonlySet<string> | undefined> {
    const entitlements = await this.entitlementsOf(userId);
    return entitlements.allModels ? undefined : new Set(entitlements.models);
  }

  private entitlementsOf(userId: string): Promise<GetEntitlementsResponse> {
    return this.cache.get(userId, () => this.client.call(PlansService.method.getEntitlements, {}));
  }
}
