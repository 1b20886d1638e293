import { afterEach, describe, expect, it } from 'vitest';
import { PlansService, WorkspacesService } from '@kw/contracts';
import { ConfigError } from '@kw/platform-config';
import { InProcessBus, InProcessTransport, serve, ServiceClient } from '@kw/platform-transport';
import { ACCOUNT_LIMITS_CACHE_MS, AccountLimits } from './account-limits.js';
import { LimitNotices } from './limit-notices.js';
import { parsePlans } from './plan-catalog.js';
import { planLimitError, planLimitReached } from './plan-limit-errors.js';

const PLANS = JSON.stringify({
  default: 'free',
  plans: [
    { id: 'free', name: 'Free', limits: { fragmentsPerWorkspace: 10, requestsPerMinute: 60 } },
    { id: 'pro', name: 'Pro', billing: { priceId: 'price_pro' } },
  ],
});

/**
 * The enforcing services' view of plans: limits asked from the owner of assignments (a real
 * in-process transport answers PlansService and WorkspacesService), cached, skipped when no
 * plan sets them; the notices at 80 % and 100 %, once each.
 */
function setUp() {
  const bus = new InProcessBus();
  const chat = new InProcessTransport({ component: 'chat', bus });
  const caller = new InProcessTransport({ component: 'fragments', bus });
  const asked: string[] = [];
  const notified: Array<{ workspaceId: string; dedupeKey: string; payload: unknown }> = [];
  let plan = 'free';
  serve(chat, PlansService.method.getAccountLimits, async ({ userId }) => {
    asked.push(userId);
    const limits = plan === 'free' ? { fragmentsPerWorkspace: 10, requestsPerMinute: 60 } : {};
    return { planId: plan, limits };
  });
  serve(chat, WorkspacesService.method.notifyWorkspaceOwners, async (input) => {
    notified.push({
      workspaceId: input.workspaceId,
      dedupeKey: input.dedupeKey,
      payload: JSON.parse(input.payloadJson),
    });
    return { notified: 1 };
  });
  const client = new ServiceClient(caller);
  return {
    client,
    asked,
    notified,
    switchTo: (id: string) => (plan = id),
    close: () => Promise.all([chat.drain(), caller.drain()]),
  };
}

describe('AccountLimits', () => {
  let ctx: ReturnType<typeof setUp> | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it('answers the account’s cap, asks once per account within the cache time, then again', async () => {
    ctx = setUp();
    const limits = new AccountLimits(ctx.client, PLANS);
    expect(await limits.limitOf('u1', 'fragmentsPerWorkspace', 1_000)).toEqual({ planId: 'free', max: 10 });
    expect(await limits.limitOf('u1', 'requestsPerMinute', 2_000)).toEqual({ planId: 'free', max: 60 });
    expect(ctx.asked).toEqual(['u1']);
    ctx.switchTo('pro');
    expect(await limits.limitOf('u1', 'fragmentsPerWorkspace', 1_000 + ACCOUNT_LIMITS_CACHE_MS)).toBeUndefined();
    expect(ctx.asked).toEqual(['u1', 'u1']);
  });

  it('asks nothing for a limit no plan sets, nor for a workspace without a plan holder (a Leaf’s)', async () => {
    ctx = setUp();
    const limits = new AccountLimits(ctx.client, PLANS);
    expect(limits.anyPlanSets('storageBytes')).toBe(false);
    expect(await limits.limitOf('u1', 'storageBytes')).toBeUndefined();
    expect(await limits.limitOf('', 'fragmentsPerWorkspace')).toBeUndefined();
    // Without PLANS (self-hosted) nothing is limited at all.
    expect(await new AccountLimits(ctx.client, undefined).limitOf('u1', 'fragmentsPerWorkspace')).toBeUndefined();
    expect(ctx.asked).toEqual([]);
  });
});

describe('LimitNotices', () => {
  let ctx: ReturnType<typeof setUp> | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it('tells at 80 % and at 100 %, each once per workspace, limit and cap', async () => {
    ctx = setUp();
    const notices = new LimitNotices(ctx.client);
    const cap = { planId: 'free', max: 10 };
    for (const used of [1, 7, 8, 9, 10, 10]) await notices.observe('w1', 'fragmentsPerWorkspace', used, cap);
    await notices.observe('w1', 'fragmentsPerWorkspace', 10, { planId: 'more', max: 12 });
    expect(ctx.notified.map((n) => [n.workspaceId, n.dedupeKey])).toEqual([
      ['w1', 'workspace.limit:fragmentsPerWorkspace:10:80'],
      ['w1', 'workspace.limit:fragmentsPerWorkspace:10:100'],
      ['w1', 'workspace.limit:fragmentsPerWorkspace:12:80'],
    ]);
    expect(ctx.notified[1]!.payload).toEqual({
      limit: 'fragmentsPerWorkspace',
      threshold: 100,
      used: 10,
      max: 10,
      planId: 'free',
    });
  });
});

describe('the plan table', () => {
  it('takes every limit and a billing price, and names the field of a bad one', () => {
    const catalog = parsePlans(PLANS);
    expect(catalog.plans.get('free')!.limits).toEqual({ fragmentsPerWorkspace: 10, requestsPerMinute: 60 });
    expect(catalog.plans.get('pro')!.billing).toEqual({ priceId: 'price_pro' });
    const refusal = (plans: unknown) => {
      try {
        parsePlans(JSON.stringify({ default: 'a', plans }));
      } catch (err) {
        if (err instanceof ConfigError) return err.message;
      }
      return 'accepted';
    };
    expect(refusal([{ id: 'a', name: 'A', limits: { storageBytes: -1 } }])).toContain('plans[0].limits.storageBytes');
    expect(refusal([{ id: 'a', name: 'A', limits: { seats: 3 } }])).toContain('plans[0].limits.seats');
    expect(refusal([{ id: 'a', name: 'A', billing: {} }])).toContain('plans[0].billing.priceId');
    expect(
      refusal([
        { id: 'a', name: 'A', billing: { priceId: 'p' } },
        { id: 'b', name: 'B', billing: { priceId: 'p' } },
      ]),
    ).toContain('plans[1].billing.priceId');
    expect(refusal([{ id: 'a', name: 'A' }])).toBe('accepted');
  });

  it('refuses unknown and missing fields, naming them (a typo must not drop limits silently)', () => {
    const refusal = (table: unknown) => {
      try {
        parsePlans(JSON.stringify(table));
      } catch (err) {
        if (err instanceof ConfigError) return err.message;
      }
      return 'accepted';
    };
    const plan = (extra: object) => ({ default: 'a', plans: [{ id: 'a', name: 'A', ...extra }] });
    expect(refusal(plan({ limit: { monthlyTokens: 1 } }))).toContain('PLANS: plans[0].limit: unknown field');
    expect(refusal({ default: 'a', plans: [{ id: 'a' }] })).toContain('PLANS: plans[0].name: required');
    expect(refusal({ default: 'a', plans: [{ id: 'a', name: '' }] })).toContain('plans[0].name');
    expect(refusal({ ...plan({}), extra: 1 })).toContain('PLANS: extra: unknown field');
    expect(refusal(plan({ entitlements: { websearch: true } }))).toContain('plans[0].entitlements.websearch: unknown');
    expect(refusal(plan({ billing: { priceId: 'p', price: 1 } }))).toContain('plans[0].billing.price: unknown');
    expect(refusal(plan({ limits: 5 }))).toContain('plans[0].limits: must be an object');
    expect(refusal(plan({ entitlements: [] }))).toContain('plans[0].entitlements: must be an object');
    expect(refusal({ default: 'a', plans: ['a'] })).toContain('plans[0]: must be an object');
    expect(refusal([plan({})])).toContain('PLANS: must be an object');
  });

  it('refuses with 403 PLAN_LIMIT_REACHED naming the limit', () => {
    expect(planLimitReached('membersPerWorkspace', 3, 'free').toJSON()).toEqual({
      status: 403,
      code: 'PLAN_LIMIT_REACHED',
      message: 'The plan free allows 3 members per workspace',
      details: { limit: 'membersPerWorkspace', max: 3, planId: 'free' },
      param: undefined,
    });
    // What another component knows of the limit joins the name; the name cannot be overridden.
    expect(planLimitError('storageBytes', 'Too large', { left: 300, limit: 'other' }).toJSON()).toMatchObject({
      status: 403,
      code: 'PLAN_LIMIT_REACHED',
      details: { limit: 'storageBytes', left: 300 },
    });
  });
});
