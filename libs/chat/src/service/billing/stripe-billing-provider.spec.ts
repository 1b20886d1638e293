import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { createLogger } from '@kw/platform-observability';
import { StripeBillingProvider, stripeEvent } from './stripe-billing-provider.js';

const USER = '11111111-1111-4111-8111-111111111111';
const SECRET = 'whsec_unit_test_secret';
const provider = new StripeBillingProvider(
  { secretKey: 'sk_test_unit', webhookSecret: SECRET, apiUrl: 'http://127.0.0.1:1' },
  createLogger({ level: 'silent', component: 'chat' }),
);

const subscription = (extra: Record<string, unknown> = {}) => ({
  id: 'sub_1',
  object: 'subscription',
  customer: 'cus_1',
  status: 'active',
  cancel_at_period_end: true,
  metadata: { kw_user_id: USER },
  items: { data: [{ price: { id: 'price_pro' }, current_period_end: 1_900_000_000 }] },
  ...extra,
});
const eventOf = (type: string, object: unknown) => ({
  id: 'evt_1',
  object: 'event',
  type,
  created: 1_800_000_000,
  data: { object },
});

describe('Stripe events in the port’s terms', () => {
  it('reads a subscription, its price and period end from the first item', () => {
    expect(stripeEvent(eventOf('customer.subscription.updated', subscription()))).toEqual({
      kind: 'subscription',
      id: 'evt_1',
      type: 'customer.subscription.updated',
      created: 1_800_000_000,
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      status: 'active',
      deleted: false,
      priceId: 'price_pro',
      currentPeriodEnd: new Date(1_900_000_000_000),
      cancelAtPeriodEnd: true,
      userId: USER,
    });
  });

  it("reads older API versions' period end and expanded customers", () => {
    const old = subscription({ customer: { id: 'cus_2' }, current_period_end: 1_700_000_000, items: { data: [{}] } });
    expect(stripeEvent(eventOf('customer.subscription.deleted', old))).toMatchObject({
      customerId: 'cus_2',
      deleted: true,
      priceId: undefined,
      currentPeriodEnd: new Date(1_700_000_000_000),
    });
  });

  it('reads a completed checkout, and no account id that is not one', () => {
    const session = { object: 'checkout.session', client_reference_id: USER, customer: 'cus_1', subscription: 'sub_1' };
    expect(stripeEvent(eventOf('checkout.session.completed', session))).toMatchObject({
      kind: 'checkout.completed',
      userId: USER,
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
    });
    const foreign = { ...session, client_reference_id: 'order-42' };
    expect(stripeEvent(eventOf('checkout.session.completed', foreign))).toMatchObject({ userId: undefined });
  });

  it('makes any other event, or one missing what it needs, `other`', () => {
    expect(stripeEvent(eventOf('invoice.paid', { id: 'in_1' }))).toEqual({
      kind: 'other',
      id: 'evt_1',
      type: 'invoice.paid',
      created: 1_800_000_000,
    });
    expect(stripeEvent(eventOf('customer.subscription.updated', { id: 'sub_1' })).kind).toBe('other');
    expect(stripeEvent(null).kind).toBe('other');
  });
});

describe('webhook signatures', () => {
  const body = JSON.stringify(eventOf('customer.subscription.created', subscription()), null, 2);
  const sign = (payload: string, secret = SECRET, timestamp?: number) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err instanceof AppError ? `${err.status} ${err.code}` : String(err);
    }
    return 'accepted';
  };

  it('accepts the exact signed body', () => {
    expect(provider.parseWebhook(body, { 'stripe-signature': sign(body) })).toMatchObject({ subscriptionId: 'sub_1' });
  });

  it('refuses a missing, foreign, stale or mismatched signature with 400 BILLING_SIGNATURE_INVALID', () => {
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const cases = [
      () => provider.parseWebhook(body, {}),
      () => provider.parseWebhook(body, { 'stripe-signature': 'v1=abc' }),
      () => provider.parseWebhook(body, { 'stripe-signature': sign(body, 'whsec_other') }),
      () => provider.parseWebhook(body, { 'stripe-signature': sign(body, SECRET, tenMinutesAgo) }),
      () => provider.parseWebhook(JSON.stringify(JSON.parse(body)), { 'stripe-signature': sign(body) }),
    ];
    for (const attempt of cases) expect(refusal(attempt)).toBe('400 BILLING_SIGNATURE_INVALID');
  });
});
