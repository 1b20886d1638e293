import { Inject, Injectable } from '@nestjs/common';
import { IdentityService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { parsePlans } from '@kw/platform-entitlements';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { BillingRepository, type BillingTransaction } from '../../persistence/billing.repository.js';
import { billingNotConfigured } from './billing-errors.js';
import {
  BILLING_PROVIDER,
  type BillingProvider,
  type CheckoutCompleted,
  type SubscriptionChanged,
} from './billing-provider.js';
import { applySubscriptionEvent, billingAssigner, planEffect } from './subscription-rules.js';

/** What a webhook delivery did: applied, duplicate (seen before), stale (older than the state), ignored. */
export type WebhookOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored';

/**
 * The billing provider's webhooks (docs/billing.md#event-handling): a verified event updates the
 * stored subscription and, from it, the account's plan assignment, once per event id and never
 * from an event older than the state it would replace.
 */
@Injectable()
export class BillingWebhooks {
  private readonly planByPrice: Map<string, string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider | null,
    private readonly billing: BillingRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly client: ServiceClient,
  ) {
    const plans = [...parsePlans(config.PLANS).plans.values()];
    this.planByPrice = new Map(plans.flatMap((p) => (p.billing ? [[p.billing.priceId, p.id] as const] : [])));
  }

  async receive(input: { provider: string; payload: string; signature: string }): Promise<WebhookOutcome> {
    const provider = this.provider;
    if (!provider || provider.name !== input.provider) throw billingNotConfigured();
    const parsed = provider.parseWebhook(input.payload, { [provider.signatureHeader]: input.signature });
    if (parsed.kind === 'other') {
      if (parsed.invalidTime)
        this.logger.warn(
          { provider: provider.name, eventId: parsed.id, type: parsed.type, field: parsed.invalidTime },
          'billing event ignored: a time that is no date',
        );
      return 'ignored';
    }
    // An account id the event carries counts only if it names an account: a customer is never
    // tied to an id that is no one's.
    const event = { ...parsed, userId: await this.existingAccount(parsed.userId) };
    const outcome = await this.billing.onceForEvent(
      { provider: provider.name, eventId: event.id, type: event.type, customerId: event.customerId },
      (tx) => (event.kind === 'checkout.completed' ? this.completed(tx, event) : this.changed(tx, event)),
    );
    const result = outcome.duplicate ? 'duplicate' : outcome.result;
    this.logger.info(
      { provider: provider.name, eventId: event.id, type: event.type, outcome: result },
      'billing event',
    );
    return result;
  }

  private async existingAccount(userId: string | undefined): Promise<string | undefined> {
    if (!userId) return undefined;
    const { existingIds } = await this.client.call(IdentityService.method.accountsExist, { ids: [userId] });
    return existingIds.includes(userId) ? userId : undefined;
  }

  /** A paid checkout ties its customer (and subscriptions seen before it) to the account. */
  private async completed(tx: BillingTransaction, event: CheckoutCompleted): Promise<WebhookOutcome> {
    if (!event.userId || !event.customerId) return 'ignored';
    const provider = this.provider!.name;
    await tx.billing.linkCustomer(provider, event.customerId, event.userId);
    await tx.billing.claimSubscriptions(provider, event.customerId, event.userId);
    await this.settle(tx, event.userId);
    return 'applied';
  }

  private async changed(tx: BillingTransaction, event: SubscriptionChanged): Promise<WebhookOutcome> {
    const provider = this.provider!.name;
    const linked = await tx.billing.userOfCustomer(provider, event.customerId);
    if (!linked && event.userId) await tx.billing.linkCustomer(provider, event.customerId, event.userId);
    const current = await tx.billing.subscription(provider, event.subscriptionId);
    const step = applySubscriptionEvent(current, event, provider, linked ?? event.userId ?? null);
    if (step.stale) return 'stale';
    await tx.billing.saveSubscription(step.next);
    if (step.next.priceId && !this.planByPrice.has(step.next.priceId))
      this.logger.warn(
        { provider, subscriptionId: event.subscriptionId, priceId: step.next.priceId },
        'a subscription pays a price that no plan of PLANS has (billing.priceId)',
      );
    if (step.next.userId) await this.settle(tx, step.next.userId);
    return 'applied';
  }

  /** The account's plan assignment from all its subscriptions (subscription-rules.ts). */
  private async settle(tx: BillingTransaction, userId: string): Promise<void> {
    const assigner = billingAssigner(this.provider!.name);
    const effect = planEffect(
      await tx.billing.subscriptionsOf(userId),
      (priceId) => this.planByPrice.get(priceId),
      await tx.assignments.assignment(userId, 'billing'),
      assigner,
    );
    if (effect.kind === 'assign') await tx.assignments.assign(userId, 'billing', effect.planId, assigner);
    else if (effect.kind === 'remove') await tx.assignments.remove(userId, 'billing');
  }
}
