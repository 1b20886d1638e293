import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { PlansService, type PlanInfo } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { AssignPlanDto, PlanDto, PlanListDto, SubscriptionDto } from './dto/plans.dto.js';

const toPlanDto = (p: PlanInfo | undefined): PlanDto => ({
  id: p?.id ?? '',
  name: p?.name ?? '',
  // Only the limits the plan sets: an absent limit is no limit.
  limits: Object.fromEntries(Object.entries(p?.limits ?? {}).filter(([k, v]) => k !== '$typeName' && v !== undefined)),
  entitlements: { webSearch: p?.webSearch ?? false, ...(p?.allModels ? {} : { models: p?.models ?? [] }) },
});

/** Plans, your subscription, and plan assignment by administrators (docs/plans.md). */
@ApiTags('Plans')
@Controller('api')
export class PlansController {
  constructor(private readonly client: ServiceClient) {}

  @Get('plans')
  @ApiOperation({ summary: 'The plans of this deployment', description: 'Scope `profile:read`.' })
  @ApiOkResponse({ type: PlanListDto })
  async list(): Promise<PlanListDto> {
    const { plans, defaultPlanId } = await this.client.call(PlansService.method.listPlans, {});
    return { plans: plans.map(toPlanDto), defaultPlanId };
  }

  @Get('subscription')
  @ApiOperation({
    summary: 'Your plan, the current period and your usage against its limits',
    description: 'Scope `profile:read`. The period is the calendar month (UTC); budgets reset at its end.',
  })
  @ApiOkResponse({ type: SubscriptionDto })
  async subscription(): Promise<SubscriptionDto> {
    const s = await this.client.call(PlansService.method.getSubscription, {});
    return {
      plan: toPlanDto(s.plan),
      periodStart: s.periodStart,
      periodEnd: s.periodEnd,
      usage: { tokens: s.tokensUsed, images: s.imagesUsed },
      billing: s.billingProvider
        ? {
            provider: s.billingProvider,
            status: s.billingStatus,
            currentPeriodEnd: s.billingCurrentPeriodEnd || null,
            cancelAtPeriodEnd: s.billingCancelAtPeriodEnd,
          }
        : null,
    };
  }

  @Put('admin/users/:userId/plan')
  @HttpCode(204)
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({ summary: "Assign an account's plan", description: 'Platform administrators only.' })
  @ApiNoContentResponse({ description: 'Assigned' })
  @ApiNotFoundResponse({ description: 'No such account' })
  async assign(@Param('userId') userId: string, @Body() body: AssignPlanDto): Promise<void> {
    await this.client.call(PlansService.method.assignPlan, { userId, planId: body.planId });
  }
}
