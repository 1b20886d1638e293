import { describe, expect, it } from 'vitest';
import type { SubscriptionChanged } from './billing-provider.js';
import {
  applySubscriptionEvent,
  billingAssigner,
  blocksCheckout,
  planEffect,
  shownSubscription,
  subscriptionBilling,
  type SubscriptionState,
} from './subscription-rules.js';

const USER = '11111111-1111-4111-8111-111111111111';
const BILLING = billingAssigner('stripe');
const planOfPrice = (priceId: string) => ({ price_pro: 'pro', price_max: 'max' })[priceId];

const event = (created: number, status: string, more: Partial<SubscriptionChanged> = {}): SubscriptionChanged => ({
  kind: 'subscription',
  id: `evt_${created}_${status}`,
  type: 'customer.subscription.updated',
  created,
  subscriptionId: 'sub_1',
  customerId: 'cus_1',
  status,
  deleted: false,
  priceId: 'price_pro',
  currentPeriodEnd: new Date(2_000_000_000_000),
  cancelAtPeriodEnd: false,
  ...more,
});

const state = (status: string, at: number, more: Partial<SubscriptionState> = {}): SubscriptionState => ({
  provider: 'stripe',
  subscriptionId: `sub_${at}`,
  customerId: 'cus_1',
  userId: USER,
  status,
  priceId: 'price_pro',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  lastEventAt: new Date(at * 1000),
  lastEventId: `evt_${at}`,
  ...more,
});

/** Folds events in arrival order, as the webhook does (duplicates are caught before, by id). */
function fold(events: SubscriptionChanged[]): SubscriptionState | undefined {
  let current: SubscriptionState | undefined;
  for (const e of events) {
    const step = applySubscriptionEvent(current, e, 'stripe', USER);
    if (!step.stale) current = step.next;
  }
  return current;
}

describe('applying subscription events', () => {
  it('takes what a newer event shows and keeps the account', () => {
    const step = applySubscriptionEvent(
      state('active', 100, { subscriptionId: 'sub_1' }),
      event(200, 'past_due', { cancelAtPeriodEnd: true }),
      'stripe',
      null,
    );
    expect(step).toEqual({
      stale: false,
      next: expect.objectContaining({
        status: 'past_due',
        userId: USER,
        cancelAtPeriodEnd: true,
        lastEventAt: new Date(200_000),
        lastEventId: 'evt_200_past_due',
      }),
    });
  });

  it('refuses an event older than the last applied, and applies one of the same second', () => {
    expect(applySubscriptionEvent(state('canceled', 200), event(199, 'active'), 'stripe', USER)).toEqual({
      stale: true,
    });
    expect(applySubscriptionEvent(state('canceled', 200), event(200, 'active'), 'stripe', USER).stale).toBe(false);
  });

  it('ends in the same state whatever order the events arrive in', () => {
    const made = [event(100, 'incomplete'), event(110, 'active'), event(120, 'active', { priceId: 'price_max' })];
    const orders = [made, [made[2], made[0], made[1]], [made[1], made[2], made[0]], [...made].reverse()];
    for (const order of orders) expect(fold(order)).toMatchObject({ status: 'active', priceId: 'price_max' });
  });

  it('counts a deleted subscription as ended whatever status it last showed', () => {
    const step = applySubscriptionEvent(undefined, event(100, 'active', { deleted: true }), 'stripe', USER);
    expect(step.stale === false && step.next.status).toBe('canceled');
  });
});

describe('the plan an account’s subscriptions give', () => {
  it('assigns the plan of the newest paying subscription, over an administrator’s', () => {
    const subs = [state('active', 100), state('trialing', 200, { priceId: 'price_max' }), state('canceled', 300)];
    expect(planEffect(subs, planOfPrice, { planId: 'team', assignedBy: USER }, BILLING)).toEqual({
      kind: 'assign',
      planId: 'max',
    });
    expect(planEffect(subs, planOfPrice, { planId: 'max', assignedBy: BILLING }, BILLING)).toEqual({ kind: 'none' });
  });

  it('takes back only its own assignment once nothing pays', () => {
    for (const status of ['canceled', 'unpaid', 'incomplete_expired', 'paused']) {
      expect(planEffect([state(status, 1)], planOfPrice, { planId: 'pro', assignedBy: BILLING }, BILLING)).toEqual({
        kind: 'remove',
      });
      expect(planEffect([state(status, 1)], planOfPrice, { planId: 'team', assignedBy: USER }, BILLING)).toEqual({
        kind: 'none',
      });
    }
    expect(planEffect([], planOfPrice, undefined, BILLING)).toEqual({ kind: 'none' });
  });

  it('keeps the plan while a payment is retried', () => {
    expect(planEffect([state('past_due', 1)], planOfPrice, { planId: 'pro', assignedBy: BILLING }, BILLING)).toEqual({
      kind: 'none',
    });
  });

  it('gives nothing for a price no plan sells', () => {
    const subs = [state('active', 1, { priceId: 'price_gone' })];
    expect(planEffect(subs, planOfPrice, undefined, BILLING)).toEqual({ kind: 'none' });
    expect(planEffect(subs, planOfPrice, { planId: 'pro', assignedBy: BILLING }, BILLING)).toEqual({ kind: 'remove' });
  });
});

describe('what the subscription route shows and checkout allows', () => {
  it('shows the paying subscription, else the one changed last', () => {
    expect(shownSubscription([state('active', 1), state('canceled', 2)])?.status).toBe('active');
    expect(shownSubscription([state('canceled', 1), state('unpaid', 2)])?.status).toBe('unpaid');
    expect(subscriptionBilling([])).toEqual({
      billingProvider: '',
      billingStatus: '',
      billingCurrentPeriodEnd: '',
      billingCancelAtPeriodEnd: false,
    });
    expect(
      subscriptionBilling([state('active', 1, { currentPeriodEnd: new Date(0), cancelAtPeriodEnd: true })]),
    ).toEqual({
      billingProvider: 'stripe',
      billingStatus: 'active',
      billingCurrentPeriodEnd: '1970-01-01T00:00:00.000Z',
      billingCancelAtPeriodEnd: true,
    });
  });

  it('refuses a second checkout while a subscription pays or retries', () => {
    expect(blocksCheckout([state('active', 1)])).toBe(true);
    expect(blocksCheckout([state('past_due', 1)])).toBe(true);
    expect(blocksCheckout([state('canceled', 1), state('incomplete_expired', 2)])).toBe(false);
  });
});
