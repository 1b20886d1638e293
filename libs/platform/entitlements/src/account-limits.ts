import { PlansService, type GetAccountLimitsResponse } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { ServiceClient } from '@kw/platform-transport';
import { LIMIT_KEYS, parsePlans, type PlanLimits } from './plan-catalog.js';

export type LimitKey = keyof PlanLimits;

/** An account's plan limit that applies: which plan, and its cap. */
export interface AppliedLimit {
  planId: string;
  max: number;
}

/** An account's limits are asked at most this often per account: a limit raised or lowered shows within it. */
export const ACCOUNT_LIMITS_CACHE_MS = 5_000;
const MAX_CACHED_ACCOUNTS = 10_000;

/**
 * The one way services learn a plan's limits for an account (docs/plans.md): the chat component
 * owns plan assignments and answers PlansService.GetAccountLimits; this asks it at most once per
 * account every five seconds. Every process reads the same PLANS table, so a limit that no plan
 * sets (the self-hosted default: none) costs nothing, not even the lookup.
 */
export class AccountLimits {
  private readonly limited: ReadonlySet<LimitKey>;
  private readonly cache = new Map<string, { at: number; answer: Promise<GetAccountLimitsResponse> }>();

  constructor(
    private readonly client: ServiceClient,
    plans: string | undefined,
  ) {
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

  private lookup(userId: string, now: number): Promise<GetAccountLimitsResponse> {
    const cached = this.cache.get(userId);
    if (cached && now - cached.at < ACCOUNT_LIMITS_CACHE_MS) return cached.answer;
    const answer = this.client.call(PlansService.method.getAccountLimits, { userId });
    answer.catch(() => this.cache.delete(userId));
    this.cache.delete(userId);
    this.cache.set(userId, { at: now, answer });
    if (this.cache.size > MAX_CACHED_ACCOUNTS) this.cache.delete(this.cache.keys().next().value!);
    return answer;
  }
}

/** For a module's providers: `accountLimitsFactory` with inject [ServiceClient, APP_CONFIG]. */
export const accountLimitsFactory = (client: ServiceClient, config: Pick<AppConfig, 'PLANS'>) =>
  new AccountLimits(client, config.PLANS);
