import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb, type ChatTx } from './chat-database.js';
import { PlanAssignmentsRepository } from './plan-assignments.repository.js';
import { lockUntilCommit } from '@kw/platform-persistence';

/** A subscription at the billing provider as the last applied webhook event left it. */
export interface BillingSubscriptionRow {
  provider: string;
  subscriptionId: string;
  customerId: string;
  userId: string | null;
  status: string;
  priceId: string | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  /** `created` of the last applied event (the provider's clock). */
  lastEventAt: Date;
  lastEventId: string;
}

const SUBSCRIPTION_FIELDS = {
  provider: true,
  subscriptionId: true,
  customerId: true,
  userId: true,
  status: true,
  priceId: true,
  currentPeriodEnd: true,
  cancelAtPeriodEnd: true,
  lastEventAt: true,
  lastEventId: true,
} as const;

/** What a webhook event's work gets: both repositories, inside the event's transaction. */
export interface BillingTransaction {
  billing: BillingRepository;
  assignments: PlanAssignmentsRepository;
}

/**
 * Subscription billing's state (docs/billing.md): customers at the provider and the accounts
 * they pay for, subscriptions as webhooks left them, and the ids of events handled.
 */
@Injectable()
export class BillingRepository {
  constructor(
    @Inject(CHAT_DB) private readonly db: ChatDb | ChatTx,
    private readonly assignments: PlanAssignmentsRepository,
  ) {}

  /** The account's customer at the provider (the newest, should there be several). */
  async customerOf(provider: string, userId: string): Promise<string | undefined> {
    const row = await this.db.billingCustomer.findFirst({
      where: { provider, userId },
      orderBy: { createdAt: 'desc' },
      select: { customerId: true },
    });
    return row?.customerId;
  }

  async userOfCustomer(provider: string, customerId: string): Promise<string | undefined> {
    const row = await this.db.billingCustomer.findUnique({
      where: { provider_customerId: { provider, customerId } },
      select: { userId: true },
    });
    return row?.userId;
  }

  /** Ties a customer to an account; a customer belongs to one account. */
  async linkCustomer(provider: string, customerId: string, userId: string): Promise<void> {
    await this.db.billingCustomer.upsert({
      where: { provider_customerId: { provider, customerId } },
      create: { provider, customerId, userId },
      update: { userId },
    });
  }

  async subscriptionsOf(userId: string): Promise<BillingSubscriptionRow[]> {
    return this.db.billingSubscription.findMany({ where: { userId }, select: SUBSCRIPTION_FIELDS });
  }

  async subscription(provider: string, subscriptionId: string): Promise<BillingSubscriptionRow | undefined> {
    const row = await this.db.billingSubscription.findUnique({
      where: { provider_subscriptionId: { provider, subscriptionId } },
      select: SUBSCRIPTION_FIELDS,
    });
    return row ?? undefined;
  }

  async saveSubscription(row: BillingSubscriptionRow): Promise<void> {
    const { provider, subscriptionId, ...state } = row;
    await this.db.billingSubscription.upsert({
      where: { provider_subscriptionId: { provider, subscriptionId } },
      create: { ...row, updatedAt: new Date() },
      update: { ...state, updatedAt: new Date() },
    });
  }

  /** Gives the customer's subscriptions that no account owned yet to `userId`. */
  async claimSubscriptions(provider: string, customerId: string, userId: string): Promise<void> {
    await this.db.billingSubscription.updateMany({
      where: { provider, customerId, userId: null },
      data: { userId, updatedAt: new Date() },
    });
  }

  /**
   * Runs `work` for a webhook event once: its id is recorded in the same transaction, so a
   * redelivery (or a concurrent duplicate, which waits for the first) finds it and does nothing;
   * `duplicate` then. Events of one customer run one at a time (a transaction lock on it), so
   * two events of one subscription cannot interleave their reads and writes.
   */
  async onceForEvent<T>(
    event: { provider: string; eventId: string; type: string; customerId?: string },
    work: (tx: BillingTransaction) => Promise<T>,
  ): Promise<{ duplicate: true } | { duplicate: false; result: T }> {
    return (this.db as ChatDb).$transaction(async (tx) => {
      const recorded = await tx.processedBillingEvent.createMany({
        data: [{ provider: event.provider, eventId: event.eventId, type: event.type }],
        skipDuplicates: true,
      });
      if (recorded.count === 0) return { duplicate: true };
      if (event.customerId) {
        await lockUntilCommit(tx, `billing:${event.provider}:${event.customerId}`);
      }
      const result = await work({
        billing: new BillingRepository(tx, this.assignments.within(tx)),
        assignments: this.assignments.within(tx),
      });
      return { duplicate: false, result };
    });
  }
}
