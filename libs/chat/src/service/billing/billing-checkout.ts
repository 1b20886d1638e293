import { Inject, Injectable } from '@nestjs/common';
import { IdentityService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { parsePlans, type PlanCatalog } from '@kw/platform-entitlements';
import { invalidField } from '@kw/platform-errors';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { BillingRepository } from '../../persistence/billing.repository.js';
import { requireAccount } from '../chat-caller.js';
import { billingNotConfigured, noBillingCustomer, subscriptionExists } from './billing-errors.js';
import { BILLING_PROVIDER, type BillingProvider } from './billing-provider.js';
import { blocksCheckout } from './subscription-rules.js';

/**
 * Buying a plan and managing the subscription at the provider (docs/billing.md#routes): a
 * checkout of a priced plan, and the customer portal once the account is a customer.
 */
@Injectable()
export class BillingCheckout {
  private readonly catalog: PlanCatalog;
  private readonly returnUrl: string;
  /** Per account, the end of its last checkout in this process. */
  private readonly checkouts = new Map<string, Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider | null,
    private readonly billing: BillingRepository,
    private readonly client: ServiceClient,
  ) {
    this.catalog = parsePlans(config.PLANS);
    this.returnUrl = config.BILLING_RETURN_URL ?? config.publicUrl;
  }

  async checkout(
    input: { planId: string; successUrl: string; cancelUrl: string },
    context: RequestContext,
  ): Promise<{ url: string; sessionId: string }> {
    const { userId } = requireAccount(context, 'profile:write');
    const provider = this.requireProvider();
    const plan = this.catalog.plans.get(input.planId);
    if (!plan) throw invalidField('planId', 'no plan has this id (GET /api/plans)');
    if (!plan.billing) throw invalidField('planId', 'this plan has no price: it cannot be bought');
    if (blocksCheckout(await this.billing.subscriptionsOf(userId))) throw subscriptionExists();
    const priceId = plan.billing.priceId;
    // One at a time per account, so a double click creates one customer, not two.
    return this.oneAtATime(userId, async () => {
      const customerId = await this.billing.customerOf(provider.name, userId);
      const session = await provider.createCheckout({
        userId,
        customerId,
        email: customerId ? undefined : await this.emailOf(userId),
        priceId,
        successUrl: input.successUrl || withQuery(this.returnUrl, 'billing', 'success'),
        cancelUrl: input.cancelUrl || withQuery(this.returnUrl, 'billing', 'canceled'),
      });
      // Tied before payment: the subscription's events then find the account whatever their order.
      if (session.customerId !== customerId) await this.billing.linkCustomer(provider.name, session.customerId, userId);
      return { url: session.url, sessionId: session.sessionId };
    });
  }

  /**
   * Runs an account's checkouts one after another in this process. Across processes the
   * provider's idempotency key on the customer's creation keeps it to one
   * (stripe-billing-provider.ts).
   */
  private async oneAtATime<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const run = (this.checkouts.get(userId) ?? Promise.resolve()).then(work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.checkouts.set(userId, settled);
    try {
      return await run;
    } finally {
      if (this.checkouts.get(userId) === settled) this.checkouts.delete(userId);
    }
  }

  async portal(input: { returnUrl: string }, context: RequestContext): Promise<{ url: string }> {
    const { userId } = requireAccount(context, 'profile:write');
    const provider = this.requireProvider();
    const customerId = await this.billing.customerOf(provider.name, userId);
    if (!customerId) throw noBillingCustomer();
    return provider.createPortal({ customerId, returnUrl: input.returnUrl || this.returnUrl });
  }

  private requireProvider(): BillingProvider {
    if (!this.provider) throw billingNotConfigured();
    return this.provider;
  }

  private async emailOf(userId: string): Promise<string | undefined> {
    const { users } = await this.client.call(IdentityService.method.getUsers, { ids: [userId] });
    return users[0]?.email || undefined;
  }
}

function withQuery(base: string, name: string, value: string): string {
  const url = new URL(base);
  url.searchParams.set(name, value);
  return url.toString();
}
