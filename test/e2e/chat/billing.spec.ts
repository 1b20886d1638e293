import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import {
  signStripeEvent,
  startStripeStandIn,
  stripeEventOf,
  stripeSubscriptionOf,
  type StripeStandIn,
} from '../../support/stand-ins/stripe-stand-in.js';
import { call } from './chat-fixture.js';

const PRO_PRICE = 'price_standin_pro_monthly';
const PLANS = {
  default: 'free',
  plans: [
    { id: 'free', name: 'Free', limits: { monthlyTokens: 1000 }, entitlements: { webSearch: false } },
    {
      id: 'pro',
      name: 'Pro',
      limits: { monthlyTokens: 1_000_000, workspacesPerUser: 50 },
      entitlements: { webSearch: true },
      billing: { priceId: PRO_PRICE },
    },
    { id: 'team', name: 'Team', entitlements: { webSearch: true } },
  ],
};
const RETURN_URL = 'https://app.example.test/account';
const WEBHOOK = '/api/billing/stripe/webhook';

/**
 * Subscription billing against a Stripe stand-in (docs/billing.md): checkout and the portal
 * call Stripe's API as the SDK does, and signed webhook events move the account's plan, once
 * per event id and never backwards in time.
 */
describe('subscription billing with Stripe', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-billing-');
  let platform: PlatformProcess;
  let stripe: StripeStandIn;
  let clock = Math.floor(Date.now() / 1000) - 3600;
  /** Event `created` times, one apart, so each test decides the order the provider made them in. */
  const tick = () => ++clock;

  const post = (token: string, path: string, body: unknown) => call(platform.url, token, 'POST', path, body);
  const subscription = async (token: string) => (await call(platform.url, token, 'GET', '/api/subscription')).body;

  /** Delivers an event as Stripe does: the exact (pretty-printed) body, signed. */
  async function deliver(
    event: Record<string, unknown>,
    sign: { secret?: string; timestamp?: number; header?: string | null; body?: string } = {},
  ) {
    const body = JSON.stringify(event, null, 2);
    const header =
      sign.header === undefined
        ? signStripeEvent(body, sign.secret ?? stripe.webhookSecret, sign.timestamp)
        : sign.header;
    const res = await fetch(`${platform.url}${WEBHOOK}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(header === null ? {} : { 'stripe-signature': header }),
      },
      body: sign.body ?? body,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** A subscription event of `userId`'s customer. */
  const subscriptionEvent = (
    type: string,
    sub: { id: string; customer: string; status: string; userId?: string; cancelAtPeriodEnd?: boolean },
    created = tick(),
  ) =>
    stripeEventOf(
      `customer.subscription.${type}`,
      stripeSubscriptionOf({ ...sub, priceId: PRO_PRICE, currentPeriodEnd: created + 30 * 86_400 }),
      { created },
    );

  /** A new account that went through checkout: its token, id and Stripe customer. */
  async function customer() {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const checkout = await post(person.token, '/api/subscription/checkout', { planId: 'pro' });
    expect(checkout.status, checkout.text).toBe(200);
    const sent = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    return { token: person.token, userId: person.user.id, email: person.user.email, customer: sent.form.customer };
  }

  const completed = (who: { userId: string; customer: string }, subscriptionId: string) =>
    stripeEventOf(
      'checkout.session.completed',
      {
        id: `cs_test_${subscriptionId}`,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        client_reference_id: who.userId,
        customer: who.customer,
        subscription: subscriptionId,
      },
      { created: tick() },
    );

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    platform = await startEmbedded(dataDir, {
      ...admin,
      PLANS: JSON.stringify(PLANS),
      BILLING_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_URL: stripe.url,
      BILLING_RETURN_URL: RETURN_URL,
    });
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    await stripe?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a checkout at Stripe for the plan’s price, as the account, with a customer made for it', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const before = stripe.requests.length;
    const checkout = await post(person.token, '/api/subscription/checkout', { planId: 'pro' });
    expect(checkout.status, checkout.text).toBe(200);
    expect(checkout.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${stripe.url}/c/pay/cs_test_`)),
      sessionId: expect.stringMatching(/^cs_test_/),
    });
    const [created, session] = stripe.requests.slice(before);
    expect(created).toMatchObject({ method: 'POST', path: '/v1/customers' });
    expect(created.headers.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(created.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(created.form).toMatchObject({ email: person.user.email, 'metadata[kw_user_id]': person.user.id });
    expect(session.path).toBe('/v1/checkout/sessions');
    expect(session.form).toMatchObject({
      mode: 'subscription',
      customer: expect.stringMatching(/^cus_/),
      client_reference_id: person.user.id,
      'line_items[0][price]': PRO_PRICE,
      'line_items[0][quantity]': '1',
      success_url: `${RETURN_URL}?billing=success`,
      cancel_url: `${RETURN_URL}?billing=canceled`,
      'subscription_data[metadata][kw_user_id]': person.user.id,
    });
    expect(session.headers['idempotency-key']).toBeTruthy();

    // The next checkout is for the same customer, to the URLs the client names.
    const again = await post(person.token, '/api/subscription/checkout', {
      planId: 'pro',
      successUrl: 'https://shop.example.test/thanks?session={CHECKOUT_SESSION_ID}',
      cancelUrl: 'https://shop.example.test/pricing',
    });
    expect(again.status, again.text).toBe(200);
    const next = stripe.requests.at(-1)!;
    expect(stripe.requests.filter((r) => r.path === '/v1/customers')).toHaveLength(
      stripe.requests.slice(0, before).filter((r) => r.path === '/v1/customers').length + 1,
    );
    expect(next.form).toMatchObject({
      customer: session.form.customer,
      success_url: 'https://shop.example.test/thanks?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example.test/pricing',
    });
  });

  it('refuses a plan without a price, an unknown plan, a bad URL and a token without profile:write', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const before = stripe.requests.length;
    for (const planId of ['team', 'free', 'platinum']) {
      const refused = await post(person.token, '/api/subscription/checkout', { planId });
      expect(refused.status, planId).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'planId' }] });
    }
    const badUrl = await post(person.token, '/api/subscription/checkout', {
      planId: 'pro',
      successUrl: 'javascript:x',
    });
    expect(badUrl.status).toBe(400);
    const reader = await userWithToken(platform.url, admin.ADMIN_TOKEN, { scopes: ['profile:read'] });
    expect((await post(reader.token, '/api/subscription/checkout', { planId: 'pro' })).status).toBe(403);
    expect((await post(reader.token, '/api/subscription/portal', {})).status).toBe(403);
    expect(stripe.requests.length).toBe(before);
  });

  it('answers 409 NO_BILLING_CUSTOMER for the portal before any checkout', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const portal = await post(person.token, '/api/subscription/portal', {});
    expect(portal.status).toBe(409);
    expect(portal.body).toMatchObject({ code: 'NO_BILLING_CUSTOMER', error: expect.any(String) });
  });

  it('answers 502 when Stripe fails, with nothing of what it said', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    stripe.setMode('fail');
    try {
      const failed = await post(person.token, '/api/subscription/checkout', { planId: 'pro' });
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ code: 'UPSTREAM_ERROR' });
      expect(failed.text).not.toContain('stand-in');
    } finally {
      stripe.setMode('ok');
    }
  });

  it('refuses a webhook with a missing, wrong, stale or mismatched signature, and changes nothing', async () => {
    const who = await customer();
    const event = subscriptionEvent('updated', { id: 'sub_forged', customer: who.customer, status: 'active' });
    const body = JSON.stringify(event, null, 2);
    const attempts = [
      await deliver(event, { header: null }),
      await deliver(event, { header: 'garbage' }),
      await deliver(event, { secret: 'whsec_not_the_endpoints' }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      // Signed over other bytes: the same event re-serialised compactly.
      await deliver(event, { header: signStripeEvent(body, stripe.webhookSecret), body: JSON.stringify(event) }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(400);
      expect(attempt.body).toMatchObject({ code: 'BILLING_SIGNATURE_INVALID', error: expect.any(String) });
    }
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'free' }, billing: null });
  });

  it('gives the paid plan once checkout completed and the subscription is active; the portal opens', async () => {
    const who = await customer();
    expect((await deliver(completed(who, 'sub_paid'))).body).toEqual({ received: true, outcome: 'applied' });
    const active = subscriptionEvent('created', { id: 'sub_paid', customer: who.customer, status: 'incomplete' });
    expect((await deliver(active)).body.outcome).toBe('applied');
    expect((await subscription(who.token)).plan.id).toBe('free');
    const paid = subscriptionEvent('updated', { id: 'sub_paid', customer: who.customer, status: 'active' });
    expect((await deliver(paid)).body.outcome).toBe('applied');

    const now = await subscription(who.token);
    expect(now.plan).toEqual({
      id: 'pro',
      name: 'Pro',
      limits: { monthlyTokens: 1_000_000, workspacesPerUser: 50 },
      entitlements: { webSearch: true },
    });
    const periodEnd = new Date(((paid.created as number) + 30 * 86_400) * 1000).toISOString();
    expect(now.billing).toEqual({
      provider: 'stripe',
      status: 'active',
      currentPeriodEnd: periodEnd,
      cancelAtPeriodEnd: false,
    });

    const portal = await post(who.token, '/api/subscription/portal', {});
    expect(portal.status, portal.text).toBe(200);
    expect(portal.body.url).toMatch(new RegExp(`^${stripe.url}/p/session/bps_`));
    expect(stripe.requests.at(-1)!.form).toEqual({ customer: who.customer, return_url: RETURN_URL });

    // Paying already: a second checkout would bill twice.
    const twice = await post(who.token, '/api/subscription/checkout', { planId: 'pro' });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('SUBSCRIPTION_EXISTS');
  });

  it('applies an event id once: a redelivered event changes nothing', async () => {
    const who = await customer();
    await deliver(completed(who, 'sub_dup'));
    // Two events of the same second apply in arrival order; redelivering the first must not undo the second.
    const second = tick();
    const canceled = subscriptionEvent(
      'updated',
      { id: 'sub_dup', customer: who.customer, status: 'canceled' },
      second,
    );
    const active = subscriptionEvent('updated', { id: 'sub_dup', customer: who.customer, status: 'active' }, second);
    expect((await deliver(canceled)).body.outcome).toBe('applied');
    expect((await deliver(active)).body.outcome).toBe('applied');
    expect((await subscription(who.token)).plan.id).toBe('pro');
    expect((await deliver(canceled)).body).toEqual({ received: true, outcome: 'duplicate' });
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'pro' }, billing: { status: 'active' } });
  });

  it('ignores an event older than what the subscription shows, whatever order they arrive in', async () => {
    const who = await customer();
    await deliver(completed(who, 'sub_late'));
    const older = subscriptionEvent('updated', { id: 'sub_late', customer: who.customer, status: 'active' });
    const newer = subscriptionEvent('updated', { id: 'sub_late', customer: who.customer, status: 'canceled' });
    expect((await deliver(newer)).body.outcome).toBe('applied');
    expect((await deliver(older)).body).toEqual({ received: true, outcome: 'stale' });
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'free' }, billing: { status: 'canceled' } });
  });

  it('goes back to the default plan when the subscription is deleted', async () => {
    const who = await customer();
    await deliver(completed(who, 'sub_end'));
    await deliver(subscriptionEvent('updated', { id: 'sub_end', customer: who.customer, status: 'active' }));
    expect((await subscription(who.token)).plan.id).toBe('pro');
    const cancelling = subscriptionEvent('updated', {
      id: 'sub_end',
      customer: who.customer,
      status: 'active',
      cancelAtPeriodEnd: true,
    });
    await deliver(cancelling);
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'pro' }, billing: { cancelAtPeriodEnd: true } });
    const deleted = subscriptionEvent('deleted', { id: 'sub_end', customer: who.customer, status: 'canceled' });
    expect((await deliver(deleted)).body.outcome).toBe('applied');
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'free' }, billing: { status: 'canceled' } });
  });

  it("leaves an administrator's assignment alone when a subscription ends", async () => {
    const who = await customer();
    const assigned = await call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${who.userId}/plan`, {
      planId: 'team',
    });
    expect(assigned.status).toBe(204);
    await deliver(completed(who, 'sub_admin'));
    await deliver(subscriptionEvent('deleted', { id: 'sub_admin', customer: who.customer, status: 'canceled' }));
    expect((await subscription(who.token)).plan.id).toBe('team');
  });

  it("gives an administrator's grant back when a subscription that paid over it ends", async () => {
    const who = await customer();
    const grant = (planId: string) =>
      call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${who.userId}/plan`, { planId });
    expect((await grant('free')).status).toBe(204);
    await deliver(completed(who, 'sub_over'));
    await deliver(subscriptionEvent('updated', { id: 'sub_over', customer: who.customer, status: 'active' }));
    expect((await subscription(who.token)).plan.id).toBe('pro');
    // A grant made while the subscription pays waits for it: the paid plan still counts.
    expect((await grant('team')).status).toBe(204);
    expect((await subscription(who.token)).plan.id).toBe('pro');
    await deliver(subscriptionEvent('deleted', { id: 'sub_over', customer: who.customer, status: 'canceled' }));
    expect((await subscription(who.token)).plan.id).toBe('team');
  });

  it('creates one customer when an account’s first checkouts start at once (a double click)', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(person.token, '/api/subscription/checkout', { planId: 'pro' })),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const mine = (path: string) =>
      stripe.requests.filter(
        (r) =>
          r.path === path &&
          (r.form['metadata[kw_user_id]'] === person.user.id || r.form.client_reference_id === person.user.id),
      );
    expect(mine('/v1/customers')).toHaveLength(1);
    const sessions = mine('/v1/checkout/sessions');
    expect(sessions).toHaveLength(4);
    expect(new Set(sessions.map((r) => r.form.customer)).size).toBe(1);
  });

  it('ignores a completed checkout whose account id is no account, and ties nothing to it', async () => {
    const who = await customer();
    const ghost = { userId: randomUUID(), customer: who.customer };
    expect((await deliver(completed(ghost, 'sub_ghost'))).body).toEqual({ received: true, outcome: 'ignored' });
    // The customer still belongs to its account: its subscription gives that account the plan.
    await deliver(subscriptionEvent('updated', { id: 'sub_ghost', customer: who.customer, status: 'active' }));
    expect((await subscription(who.token)).plan.id).toBe('pro');
  });

  it('acknowledges and ignores other event types', async () => {
    const answer = await deliver(stripeEventOf('invoice.paid', { id: 'in_1', object: 'invoice' }));
    expect(answer).toEqual({ status: 200, body: { received: true, outcome: 'ignored' } });
  });

  it('acknowledges and ignores a signed event whose times are no dates, so Stripe stops retrying it', async () => {
    const who = await customer();
    await deliver(completed(who, 'sub_when'));
    const sub = (currentPeriodEnd: number) =>
      stripeSubscriptionOf({
        id: 'sub_when',
        customer: who.customer,
        status: 'active',
        priceId: PRO_PRICE,
        currentPeriodEnd,
      });
    const nonsense = [
      stripeEventOf('customer.subscription.updated', sub(tick() + 86_400), { created: 1e20 }),
      stripeEventOf('customer.subscription.updated', sub(1e300), { created: tick() }),
      stripeEventOf('customer.subscription.updated', sub(tick() + 86_400), { created: -1 }),
      { ...completed(who, 'sub_when'), created: 1e20 },
    ];
    for (const event of nonsense) {
      const answer = await deliver(event);
      expect(answer, JSON.stringify(event)).toEqual({ status: 200, body: { received: true, outcome: 'ignored' } });
      // Redelivered (Stripe retries only what it was not acknowledged): the same answer.
      expect((await deliver(event)).body.outcome).toBe('ignored');
    }
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'free' }, billing: null });
    const ignored = platform.logs.filter((l) => l.msg === 'billing event ignored: a time that is no date');
    expect(ignored.map((l) => l.eventId)).toEqual(expect.arrayContaining(nonsense.map((e) => e.id)));
    // Nothing of them was kept: the subscription's next real event applies.
    const paid = subscriptionEvent('updated', { id: 'sub_when', customer: who.customer, status: 'active' });
    expect((await deliver(paid)).body.outcome).toBe('applied');
    expect((await subscription(who.token)).plan.id).toBe('pro');
  });

  it('never logs the secret key or the webhook secret', () => {
    const output = JSON.stringify(platform.logs) + platform.stderr.join('');
    expect(output).toContain('billing event');
    expect(output).not.toContain(stripe.secretKey);
    expect(output).not.toContain(stripe.webhookSecret);
  });

  it('shows no billing once the deployment runs without a billing provider, even for an account Stripe billed', async () => {
    const who = await customer();
    await deliver(completed(who, 'sub_off'));
    await deliver(subscriptionEvent('updated', { id: 'sub_off', customer: who.customer, status: 'active' }));
    await deliver(subscriptionEvent('deleted', { id: 'sub_off', customer: who.customer, status: 'canceled' }));
    expect(await subscription(who.token)).toMatchObject({ billing: { provider: 'stripe', status: 'canceled' } });
    // The same data, started again without billing (it ends billing: only the test below follows).
    await platform.stop();
    platform = await startEmbedded(dataDir, { ...admin, PLANS: JSON.stringify(PLANS) });
    expect(await subscription(who.token)).toMatchObject({ plan: { id: 'free' }, billing: null });
  }, 90_000);

  // On the platform the test above restarted without a billing provider (no new platform needed).
  it('answers 409 BILLING_NOT_CONFIGURED to checkout, the portal and the webhook', async () => {
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const event = JSON.stringify(stripeEventOf('invoice.paid', { id: 'in_1', object: 'invoice' }));
    const answers = [
      await call(platform.url, token, 'POST', '/api/subscription/checkout', { planId: 'pro' }),
      await call(platform.url, token, 'POST', '/api/subscription/portal', {}),
      await fetch(`${platform.url}${WEBHOOK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signStripeEvent(event, 'whsec_x') },
        body: event,
      }).then(async (res) => ({ status: res.status, body: await res.json() })),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: 'BILLING_NOT_CONFIGURED', error: expect.any(String) });
    }
    expect((await call(platform.url, token, 'GET', '/api/subscription')).body).toMatchObject({ billing: null });
  });
});
