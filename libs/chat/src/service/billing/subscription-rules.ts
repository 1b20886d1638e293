import type { BillingSubscriptionRow } from '../../persistence/billing.repository.js';
import type { SubscriptionChanged } from './billing-provider.js';

/**
 * The rules of subscription billing (docs/billing.md#event-handling), pure: how an event changes
 * a stored subscription, and which plan an account's subscriptions give it.
 */

/** A subscription as stored: the state the last applied event left. */
export type SubscriptionState = BillingSubscriptionRow;

/** Statuses in which a subscription pays for its plan. */
const PAYING = new Set(['active', 'trialing']);
/** The provider is retrying or awaiting a payment: the plan stays what it was meanwhile. */
const RETRYING = new Set(['past_due', 'incomplete']);
// Any other status (canceled, unpaid, incomplete_expired, paused) or a deleted subscription ends it.

/** Who made an assignment that billing made: the only kind billing may take back. */
export const billingAssigner = (provider: string): string => `billing:${provider}`;

export type EventStep = { stale: true } | { stale: false; next: SubscriptionState };

/**
 * An event older than the last one applied to its subscription changes nothing (`stale`):
 * providers do not deliver in order. One of the same second applies (events of one second
 * arrive in order often enough, and a duplicate is caught by its id before this).
 */
export function applySubscriptionEvent(
  current: SubscriptionState | undefined,
  event: SubscriptionChanged,
  provider: string,
  userId: string | null,
): EventStep {
  const at = new Date(event.created * 1000);
  if (current && at.getTime() < current.lastEventAt.getTime()) return { stale: true };
  return {
    stale: false,
    next: {
      provider,
      subscriptionId: event.subscriptionId,
      customerId: event.customerId,
      userId: current?.userId ?? userId,
      // A deleted subscription has ended whatever status it last showed.
      status: event.deleted && (PAYING.has(event.status) || RETRYING.has(event.status)) ? 'canceled' : event.status,
      priceId: event.priceId ?? null,
      currentPeriodEnd: event.currentPeriodEnd ?? null,
      cancelAtPeriodEnd: event.cancelAtPeriodEnd,
      lastEventAt: at,
      lastEventId: event.id,
    },
  };
}

export type PlanEffect = { kind: 'assign'; planId: string } | { kind: 'remove' } | { kind: 'none' };

/**
 * What an account's subscriptions make of billing's plan assignment (`current`): the plan of the
 * newest paying subscription (it wins over an administrator's grant, kept apart); none paying
 * and none retrying a payment: billing takes its assignment back, and the account falls back to
 * the administrator's grant, else the default plan.
 */
export function planEffect(
  subscriptions: SubscriptionState[],
  planOfPrice: (priceId: string) => string | undefined,
  current: { planId: string; assignedBy: string } | undefined,
  assigner: string,
): PlanEffect {
  const paying = subscriptions
    .filter((s) => PAYING.has(s.status) && s.priceId !== null && planOfPrice(s.priceId) !== undefined)
    .sort((a, b) => b.lastEventAt.getTime() - a.lastEventAt.getTime())[0];
  if (paying) {
    const planId = planOfPrice(paying.priceId!)!;
    return current?.planId === planId && current.assignedBy === assigner
      ? { kind: 'none' }
      : { kind: 'assign', planId };
  }
  if (current?.assignedBy !== assigner) return { kind: 'none' };
  if (subscriptions.some((s) => RETRYING.has(s.status))) return { kind: 'none' };
  return { kind: 'remove' };
}

/** The subscription `GET /api/subscription` shows: the paying one, else the one changed last. */
export function shownSubscription(subscriptions: SubscriptionState[]): SubscriptionState | undefined {
  const rank = (s: SubscriptionState) => (PAYING.has(s.status) ? 1 : 0);
  return [...subscriptions].sort((a, b) => rank(b) - rank(a) || b.lastEventAt.getTime() - a.lastEventAt.getTime())[0];
}

/** A second checkout would bill twice: refused while a subscription pays or retries a payment. */
export function blocksCheckout(subscriptions: SubscriptionState[]): boolean {
  return subscriptions.some((s) => PAYING.has(s.status) || s.status === 'past_due');
}

/** The billing fields of GetSubscriptionResponse (numbers 20+): empty without a subscription. */
export function subscriptionBilling(subscriptions: SubscriptionState[]) {
  const shown = shownSubscription(subscriptions);
  return {
    billingProvider: shown?.provider ?? '',
    billingStatus: shown?.status ?? '',
    billingCurrentPeriodEnd: shown?.currentPeriodEnd?.toISOString() ?? '',
    billingCancelAtPeriodEnd: shown?.cancelAtPeriodEnd ?? false,
  };
}
