import { PlansService, type GetAccountLimitsResponse } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { ServiceClient } from '@kw/platform-transport';
import type { AppError } from '@kw/platform-errors';
import { PerAccountCache } from './per-account-cache.js';
import { LIMIT_KEYS, parsePlans, type PlanLimits } from './plan-catalog.js';
import { planLimitReached } from './plan-limit-errors.js';

export type LimitKey = keyof PlanLimits;

/** An account's plan limit that applies: which plan, and its cap. */
export interface AppliedLimit {
  planId: string;
  max: number;
}

/** The cap in force: the plan's (`byPlan`, with its refusal) or the deployment's. */
export interface BindingCap {
  max: number;
  /** The account's plan limit, also when the deployment's cap is the lower one. */
  plan?: AppliedLimit;
  byPlan: boolean;
  planRefusal?: () => AppError;
}

/**
 * An account's limits are asked at most this often per account by default (PLAN_CACHE_MS): a
 * limit raised or lowered shows within it.
 */
export const ACCOUNT_LIMITS_CACHE_MS = 5_000;

/**
 * The one way services learn a plan's limits for an account (docs/plans.md): the chat component
 * owns plan assignments and answers PlansService.GetAccountLimits; this asks it at most once per
 * account every five seconds (PLAN_CACHE_MS). Every process reads the same PLANS table, so a limit that no plan
 * sets (the self-hosted default: none) costs nothing, not even the lookup.
 */
export class AccountLimits {
  private readonly limited: ReadonlySet<LimitKey>;
  private readonly cache: PerAccountCache<GetAccountLimitsResponse>;

  constructor(
    private readonly client: ServiceClient,
    plans: string | undefined,
    cacheMs = ACCOUNT_LIMITS_CACHE_MS,
  ) {
    this.cache = new PerAccountCache<GetAccountLimitsResponse>(cacheMs);
    const catalog = parsePlans(plans);
    this.limited = new Set(
      LIMIT_KEYS.filter((key) => [...catalog.plans.values()].some((plan) => plan.limits[key] !== undefined)),
    );
  }

  /** Whether any plan sets this limit (else limitOf is always undefined). */
  anyPlanSets(key: LimitKey): boolean {
    return this.limited.has(key);
  }

  /**
   * The account's cap for `key`, or undefined without one. An empty account (a Leaf's
   * workspace: the customer's infrastructure, no plan) has no plan limits.
   */
  async limitOf(userId: string, key: LimitKey, now = Date.now()): Promise<AppliedLimit | undefined> {
    if (!userId || !this.limited.has(key)) return undefined;
    const { planId, limits } = await this.lookup(userId, now);
    const max = limits?.[key];
    return max === undefined ? undefined : { planId, max };
  }

  /**
   * The lower of the plan's cap for `key` and the deployment's own (`deploymentMax`): which one
   * binds, and when it is the plan's, the refusal that names it (403 PLAN_LIMIT_REACHED). The
   * deployment's cap keeps its own answer, the caller's.
   */
  async capOf(userId: string, key: LimitKey, deploymentMax: number): Promise<BindingCap> {
    const plan = await this.limitOf(userId, key);
    if (plan && plan.max < deploymentMax)
      return { max: plan.max, plan, byPlan: true, planRefusal: () => planLimitReached(key, plan.max, plan.planId) };
    return { max: deploymentMax, plan, byPlan: false };
  }

  private lookup(userId: string, now: number): Promise<GetAccountLimitsResponse> {
    return this.cache.get(userId, () => this.client.call(PlansService.method.getAccountLimits, { userId }), now);
  }
}

/** For a module's providers: `accountLimitsFactory` with inject [ServiceClient, APP_CONFIG]. */
export const accountLimitsFactory = (client: ServiceClient, config: Pick<AppConfig, 'PLANS' | 'PLAN_CACHE_MS'>) =>
  new AccountLimits(client, config.PLANS, config.PLAN_CACHE_MS);
