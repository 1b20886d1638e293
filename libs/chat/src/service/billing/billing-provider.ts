/**
 * The billing provider port (docs/billing.md): what subscription billing needs of a payment
 * provider, in the platform's terms. One adapter today, Stripe (stripe-billing-provider.ts);
 * without BILLING_PROVIDER the token holds null and the billing routes answer 409.
 */
export const BILLING_PROVIDER = Symbol('BILLING_PROVIDER');

export interface CheckoutInput {
  /** Our account id; the provider hands it back with the completed checkout. */
  userId: string;
  /** Prefills the provider's customer, when one is created. */
  email?: string;
  /** The account's customer at the provider; absent: one is created. */
  customerId?: string;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutSession {
  /** The provider's checkout page. */
  url: string;
  sessionId: string;
  /** The customer the checkout is for (the one given, or the one created for it). */
  customerId: string;
}

/** A checkout that ended in payment: the customer (and its subscription) belong to `userId`. */
export interface CheckoutCompleted {
  kind: 'checkout.completed';
  id: string;
  type: string;
  /** When the provider created the event, seconds since the epoch (its clock). */
  created: number;
  userId?: string;
  customerId?: string;
  subscriptionId?: string;
}

/** A subscription as an event shows it (created, updated or deleted). */
export interface SubscriptionChanged {
  kind: 'subscription';
  id: string;
  type: string;
  created: number;
  subscriptionId: string;
  customerId: string;
  /** The provider's status: active, trialing, past_due, incomplete, canceled, unpaid... */
  status: string;
  /** The subscription ended for good (Stripe: customer.subscription.deleted). */
  deleted: boolean;
  /** The price of its first item: the plan it pays for (PLANS' billing.priceId). */
  priceId?: string;
  currentPeriodEnd?: Date;
  cancelAtPeriodEnd: boolean;
  /** Our account id, when the subscription carries it (set at checkout). */
  userId?: string;
}

/** Any other event: acknowledged and ignored. */
export interface OtherBillingEvent {
  kind: 'other';
  id: string;
  type: string;
  created: number;
  /** Set when an event of a known type was set aside for a time that is no date: the field. */
  invalidTime?: string;
}

export type BillingEvent = CheckoutCompleted | SubscriptionChanged | OtherBillingEvent;

export interface BillingProvider {
  /** The provider's name, stored with its customers and subscriptions ("stripe"). */
  readonly name: string;
  /** The header its webhooks carry their signature in, lower-case ("stripe-signature"). */
  readonly signatureHeader: string;
  createCheckout(input: CheckoutInput): Promise<CheckoutSession>;
  createPortal(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  /**
   * Verifies the signature over the exact body and reads the event; throws 400
   * BILLING_SIGNATURE_INVALID when the signature is missing, wrong or too old.
   */
  parseWebhook(rawBody: string, headers: Record<string, string | undefined>): BillingEvent;
}
