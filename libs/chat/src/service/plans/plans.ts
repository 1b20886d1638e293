import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  GetAccountLimitsResponseSchema,
  GetEntitlementsResponseSchema,
  GetSubscriptionResponseSchema,
  PlanInfoSchema,
} from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { monthOf, parsePlans, type Plan, type PlanCatalog } from '@kw/platform-entitlements';
import { ModelUsageRepository } from '../../persistence/model-usage.repository.js';
import { PlanAssignmentsRepository } from '../../persistence/plan-assignments.repository.js';
import { BillingRepository } from '../../persistence/billing.repository.js';
import { subscriptionBilling } from '../billing/subscription-rules.js';
import { requireAccount } from '../chat-caller.js';
import { requireExistingUser, requirePlatformAdmin } from '../platform-admin.js';

/**
 * Plans and entitlements (docs/plans.md): the operator's plan table (PLANS), an account's
 * assignment (or the default plan), and what the account may still use in the current
 * calendar month. The budgets count the same usage records `/api/ai/usage` reads.
 */
@Injectable()
export class Plans {
  private readonly catalog: PlanCatalog;
  /** Without BILLING_PROVIDER, `billing` is null in the subscription, whatever an earlier provider stored. */
  private readonly billingOn: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly assignments: PlanAssignmentsRepository,
    private readonly usage: ModelUsageRepository,
    private readonly client: ServiceClient,
    private readonly billing: BillingRepository,
  ) {
    this.catalog = parsePlans(config.PLANS);
    this.billingOn = config.BILLING_PROVIDER !== undefined;
  }

  list() {
    return { plans: [...this.catalog.plans.values()].map(toPlanInfo), defaultPlanId: this.catalog.defaultPlanId };
  }

  /**
   * The account's plan: a paying subscription's, else an administrator's grant, each only while
   * that plan still exists; else the default.
   */
  async planOf(userId: string): Promise<Plan> {
    for (const planId of await this.assignments.plansOf(userId)) {
      const plan = this.catalog.plans.get(planId);
      if (plan) return plan;
    }
    return this.catalog.plans.get(this.catalog.defaultPlanId)!;
  }

  async subscription(
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof GetSubscriptionResponseSchema>> {
    const { userId } = requireAccount(context, 'profile:read');
    const plan = await this.planOf(userId);
    const period = monthOf(now);
    const spent = await this.usage.spentSince(userId, period.start);
    return {
      plan: toPlanInfo(plan),
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
      tokensUsed: spent.tokens,
      imagesUsed: spent.images,
      ...subscriptionBilling(this.billingOn ? await this.billing.subscriptionsOf(userId) : []),
    };
  }

  async entitlements(
    context: RequestContext,
    now = new Date(),
  ): Promise<MessageInitShape<typeof GetEntitlementsResponseSchema>> {
    // Internal (no REST route): a service asks for its caller, whatever that credential may do
    // (an embed chat's visitor holds no chat:use scope, yet their turns spend their budget).
    const userId = context.auth?.userId;
    if (!userId) throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Sign in first' });
    const plan = await this.planOf(userId);
    const period = monthOf(now);
    const budgeted = plan.limits.monthlyTokens !== undefined || plan.limits.monthlyImages !== undefined;
    const spent = budgeted ? await this.usage.spentSince(userId, period.start) : { tokens: 0, images: 0 };
    return {
      planId: plan.id,
      webSearch: plan.entitlements.webSearch,
      allModels: plan.entitlements.models === undefined,
      models: plan.entitlements.models ?? [],
      tokensRemaining:
        plan.limits.monthlyTokens === undefined ? undefined : Math.max(0, plan.limits.monthlyTokens - spent.tokens),
      imagesRemaining:
        plan.limits.monthlyImages === undefined ? undefined : Math.max(0, plan.limits.monthlyImages - spent.images),
      resetsAt: period.end.toISOString(),
    };
  }

  /** Internal: any account's plan limits, for the services that enforce them on workspaces. */
  async accountLimits(userId: string): Promise<MessageInitShape<typeof GetAccountLimitsResponseSchema>> {
    const plan = await this.planOf(userId);
    return { planId: plan.id, limits: { ...plan.limits } };
  }

  async assign(userId: string, planId: string, context: RequestContext): Promise<void> {
    const adminId = await requirePlatformAdmin(this.client, context);
    if (!this.catalog.plans.has(planId)) throw invalidField('planId', 'no plan has this id (GET /api/plans)');
    await requireExistingUser(this.client, userId);
    await this.assignments.assign(userId, 'admin', planId, adminId);
  }
}

function toPlanInfo(plan: Plan): MessageInitShape<typeof PlanInfoSchema> {
  return {
    id: plan.id,
    name: plan.name,
    limits: { ...plan.limits },
    webSearch: plan.entitlements.webSearch,
    models: plan.entitlements.models ?? [],
    allModels: plan.entitlements.models === undefined,
  };
}
