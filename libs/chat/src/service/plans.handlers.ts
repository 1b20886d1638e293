import { Injectable } from '@nestjs/common';
import { PlansService, type AssignPlanRequest, type GetAccountLimitsRequest } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles } from '@kw/platform-transport';
import { requireAccount } from './chat-caller.js';
import { Plans } from './plans/plans.js';

/** PlansService over the transport: each method hands over to its use case. */
@Injectable()
export class PlansHandlers {
  constructor(private readonly plans: Plans) {}

  @Handles(PlansService.method.listPlans)
  listPlans(_input: unknown, context: RequestContext) {
    requireAccount(context, 'profile:read');
    return this.plans.list();
  }

  @Handles(PlansService.method.getSubscription)
  getSubscription(_input: unknown, context: RequestContext) {
    return this.plans.subscription(context);
  }

  @Handles(PlansService.method.assignPlan)
  async assignPlan(input: AssignPlanRequest, context: RequestContext) {
    await this.plans.assign(input.userId, input.planId, context);
    return {};
  }

  @Handles(PlansService.method.getEntitlements)
  getEntitlements(_input: unknown, context: RequestContext) {
    return this.plans.entitlements(context);
  }

  /** Internal: no REST route reaches it; the enforcing services ask for a workspace owner's limits. */
  @Handles(PlansService.method.getAccountLimits)
  getAccountLimits(input: GetAccountLimitsRequest) {
    return this.plans.accountLimits(input.userId);
  }
}
