import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { badRequest } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { billingSignatureInvalid, billingUpstreamError } from './billing-errors.js';
import type { BillingEvent, BillingProvider, CheckoutInput, CheckoutSession } from './billing-provider.js';

/** The metadata key our account id travels under on Stripe customers and subscriptions. */
export const USER_ID_METADATA = 'kw_user_id';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Stripe's API origin; a local stand-in in tests. */
  apiUrl: string;
}

/**
 * Subscription billing through Stripe with the official SDK: a customer per account (created
 * at its first checkout), Checkout in subscription mode, the customer portal, and webhooks
 * verified by `webhooks.constructEvent` (HMAC over the exact body, 300 s tolerance).
 * The secret key and webhook secret are never logged: failures log Stripe's type and code only.
 */
export class StripeBillingProvider implements BillingProvider {
  readonly name = 'stripe';
  readonly signatureHeader = 'stripe-signature';
  private readonly stripe: Stripe;

  constructor(
    private readonly settings: StripeSettings,
    private readonly logger: Logger,
  ) {
    const api = new URL(settings.apiUrl);
    this.stripe = new Stripe(settings.secretKey, {
      host: api.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: api.port || (api.protocol === 'http:' ? 80 : 443),
      protocol: api.protocol === 'http:' ? 'http' : 'https',
      // The SDK sends an idempotency key with each POST, so its retries never buy twice.
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
    });
  }

  async createCheckout(input: CheckoutInput): Promise<CheckoutSession> {
    return this.call('checkout', async () => {
      // The key names the account (and the email, which Stripe requires to be the same for one
      // key): checkouts of one account on two replicas get one customer for 24 hours, Stripe's
      // memory of keys; by then the first is tied to the account and reused.
      const customerId =
        input.customerId ??
        (
          await this.stripe.customers.create(
            { email: input.email, metadata: { [USER_ID_METADATA]: input.userId } },
            { idempotencyKey: customerKey(input.userId, input.email) },
          )
        ).id;
      const session = await this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: input.userId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        subscription_data: { metadata: { [USER_ID_METADATA]: input.userId } },
      });
      if (!session.url) throw new Error('Stripe answered a checkout session without a url');
      return { url: session.url, sessionId: session.id, customerId };
    });
  }

  async createPortal(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    return this.call('portal', async () => {
      const session = await this.stripe.billingPortal.sessions.create({
        customer: input.customerId,
        return_url: input.returnUrl,
      });
      return { url: session.url };
    });
  }

  parseWebhook(rawBody: string, headers: Record<string, string | undefined>): BillingEvent {
    let event: unknown;
    try {
      event = this.stripe.webhooks.constructEvent(
        rawBody,
        headers[this.signatureHeader] ?? '',
        this.settings.webhookSecret,
      );
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw billingSignatureInvalid();
      // Signed but not an event (the signature held, so the body is Stripe's: not expected).
      throw badRequest('The webhook body is not a Stripe event');
    }
    return stripeEvent(event);
  }

  /** Runs one API call; a failure is logged by Stripe's type and code and answered 502. */
  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const e = err as Partial<InstanceType<typeof Stripe.errors.StripeError>>;
      this.logger.warn(
        { provider: 'stripe', call: what, type: e.type, code: e.code, status: e.statusCode, requestId: e.requestId },
        'billing provider call failed',
      );
      throw billingUpstreamError();
    }
  }
}

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const asString = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;
/** An id field, sent as the id or, when expanded, as the object. */
const idOf = (value: unknown): string | undefined => asString(value) ?? asString(asObject(value)?.id);
const epoch = (value: unknown): Date | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? new Date(value * 1000) : undefined;
const accountId = (value: unknown): string | undefined => (isUuid(value) ? value : undefined);

/**
 * The times an event may carry, in seconds since the epoch: 2000-01-01 to 2200-01-01 (Stripe's
 * are whole seconds of this century; a test clock's period ends included). A time outside it,
 * or one that is not a finite number (1e20, 1e300, -1), is no date the database can keep.
 */
export const EVENT_TIME_RANGE = { min: 946_684_800, max: 7_258_118_400 } as const;
const isEventTime = (value: number): boolean =>
  Number.isFinite(value) && value >= EVENT_TIME_RANGE.min && value <= EVENT_TIME_RANGE.max;

/**
 * A verified Stripe event in the port's terms. Checkout sessions and subscriptions are read
 * leniently (Stripe's API versions move fields: current_period_end moved from the subscription
 * to its items); an event of another type, or missing what it needs, is `other`.
 */
export function stripeEvent(value: unknown): BillingEvent {
  const event = asObject(value) ?? {};
  const id = asString(event.id) ?? '';
  const type = asString(event.type) ?? '';
  const created = typeof event.created === 'number' ? event.created : 0;
  const other: BillingEvent = { kind: 'other', id, type, created };
  const object = asObject(asObject(event.data)?.object);
  if (!id || !object) return other;

  // A signed event whose times are no dates is not applied: the same body would fail on every
  // retry (docs/billing.md#the-webhook); it is acknowledged as ignored and logged.
  const invalid = (field: string): BillingEvent => ({ ...other, invalidTime: field });
  const known =
    type === 'checkout.session.completed' ||
    type === 'customer.subscription.created' ||
    type === 'customer.subscription.updated' ||
    type === 'customer.subscription.deleted';
  if (known && event.created !== undefined && !(typeof event.created === 'number' && isEventTime(event.created)))
    return invalid('created');

  if (type === 'checkout.session.completed') {
    return {
      kind: 'checkout.completed',
      id,
      type,
      created,
      userId: accountId(object.client_reference_id),
      customerId: idOf(object.customer),
      subscriptionId: idOf(object.subscription),
    };
  }
  if (
    type === 'customer.subscription.created' ||
    type === 'customer.subscription.updated' ||
    type === 'customer.subscription.deleted'
  ) {
    const subscriptionId = asString(object.id);
    const customerId = idOf(object.customer);
    const status = asString(object.status);
    if (!subscriptionId || !customerId || !status) return other;
    const items = asObject(object.items)?.data;
    const item = asObject(Array.isArray(items) ? items[0] : undefined);
    for (const [field, value] of [
      ['items.data[0].current_period_end', item?.current_period_end],
      ['current_period_end', object.current_period_end],
    ] as const)
      if (typeof value === 'number' && !isEventTime(value)) return invalid(`data.object.${field}`);
    return {
      kind: 'subscription',
      id,
      type,
      created,
      subscriptionId,
      customerId,
      status,
      deleted: type === 'customer.subscription.deleted',
      priceId: idOf(item?.price),
      currentPeriodEnd: epoch(item?.current_period_end) ?? epoch(object.current_period_end),
      cancelAtPeriodEnd: object.cancel_at_period_end === true,
      userId: accountId(asObject(object.metadata)?.[USER_ID_METADATA]),
    };
  }
  return other;
}

function customerKey(userId: string, email: string | undefined): string {
  return `kw-customer-${userId}-${createHash('sha256')
    .update(email ?? '')
    .digest('hex')
    .slice(0, 16)}`;
}
