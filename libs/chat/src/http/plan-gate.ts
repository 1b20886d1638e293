import { Inject, Injectable } from '@nestjs/common';
import { PlansService, type GetEntitlementsResponse } from '@kw/contracts';
import { PerAccountCache, planLimitError } from '@kw/platform-entitlements';
import type { AppConfig } from '@kw/platform-config';
import { AppError } from '@kw/platform-errors';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { UncountedUsage, type Hold } from './uncounted-usage.js';

interface Read {
  entitlements: GetEntitlementsResponse;
  /** When they were asked for. */
  at: number;
}

/**
 * The plan check of model calls (docs/plans.md): the model must be one the plan allows, and the
 * month's token (chat) or image budget must not be spent. Entitlements come from the chat service
 * (PlansService), cached per account for five seconds (PLAN_CACHE_MS, at most five), so a model call costs no extra hop most of
 * the time. What those seconds' view cannot count yet, both budgets take from UncountedUsage: the
 * calls in flight in this process (a token estimate, or the images asked for) and what it
 * recorded since, so calls started together cannot all spend the same remaining budget.
 */
@Injectable()
export class PlanGate {
  /** An account's entitlements are asked at most this often per account (UncountedUsage covers the gap). */
  private readonly cache: PerAccountCache<Read>;

  constructor(
    private readonly client: ServiceClient,
    private readonly uncounted: UncountedUsage,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'PLAN_CACHE_MS'>,
  ) {
    this.cache = new PerAccountCache<Read>(config.PLAN_CACHE_MS);
  }

  /**
   * Refuses the call if the plan does not allow it. Otherwise the call's estimate (tokens of a
   * chat, images of an image call) is held from this check (in the same tick, so parallel checks
   * see each other) until the returned hold is released, when the call has ended and its usage
   * was recorded.
   */
  async check(userId: string, modelId: string, kind: 'chat' | 'image', estimate: number): Promise<Hold> {
    const { entitlements, at } = await this.entitlementsOf(userId);
    if (!entitlements.allModels && !entitlements.models.includes(modelId))
      throw new AppError({
        status: 403,
        code: 'PLAN_MODEL_NOT_ALLOWED',
        message: `Your plan (${entitlements.planId}) does not include the model ${modelId}`,
        param: 'model',
      });
    const unit = kind === 'chat' ? 'tokens' : 'images';
    const budget = kind === 'chat' ? entitlements.tokensRemaining : entitlements.imagesRemaining;
    const remaining = budget === undefined ? undefined : budget - this.uncounted.total(userId, at, unit);
    if (remaining !== undefined && remaining <= 0)
      throw planLimitError(
        kind === 'chat' ? 'monthlyTokens' : 'monthlyImages',
        `Your plan's monthly ${kind === 'chat' ? 'token' : 'image'} budget is spent; it resets at ${entitlements.resetsAt}`,
        { resetsAt: entitlements.resetsAt },
      );
    return this.uncounted.hold(userId, estimate, unit);
  }

  /** The model ids the caller's plan includes; undefined: every model of the deployment. */
  async allowedModels(userId: string): Promise<ReadonlySet<string> | undefined> {
    const { entitlements } = await this.entitlementsOf(userId);
    return entitlements.allModels ? undefined : new Set(entitlements.models);
  }

  private entitlementsOf(userId: string): Promise<Read> {
    return this.cache.get(userId, () => {
      const at = Date.now();
      return this.client.call(PlansService.method.getEntitlements, {}).then((entitlements) => ({ entitlements, at }));
    });
  }
}
