import { Inject, Injectable } from '@nestjs/common';
import { sqlTransaction, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import type { DeliveryRow, DeliveryWithAttempts, WebhookRow } from './rows.js';
import { WEBHOOKS_DB, type WebhooksDb } from './webhooks-database.js';

export interface NewTestDelivery {
  webhookId: string;
  workspaceId: string;
  eventType: string;
  body: string;
  /** Claimed from the start (delivering + lease) so the worker leaves it to its creator. */
  leaseUntil: Date;
}

export interface FannedOutEvent {
  workspaceId: string;
  eventId: string;
  eventType: string;
  body: string;
}

export interface RecordedAttempt {
  number: number;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  failure: string | null;
  message: string | null;
}

export interface DeliveryAfterAttempt {
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastFailure: string | null;
  nextAttemptAt: Date;
  completedAt: Date | null;
}

const withAttempts = { attemptLog: { orderBy: { number: 'asc' as const } } };

/** Deliveries (the durable schedule of sends) and their attempts. */
@Injectable()
export class DeliveriesRepository {
  constructor(
    @Inject(WEBHOOKS_DB) private readonly db: WebhooksDb,
    /** The process's pool (never null here: WEBHOOKS_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** A page of a webhook's deliveries, newest first, with their attempts; and how many there are. */
  async pageForWebhook(
    webhookId: string,
    status: string | undefined,
    take: number,
    skip: number,
  ): Promise<{ rows: DeliveryWithAttempts[]; totalCount: number }> {
    const where = { webhookId, ...(status && { status }) };
    const [rows, totalCount] = await Promise.all([
      this.db.webhookDelivery.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        skip,
        include: withAttempts,
      }),
      this.db.webhookDelivery.count({ where }),
    ]);
    return { rows, totalCount };
  }

  findOfWebhook(id: string, webhookId: string): Promise<DeliveryWithAttempts | null> {
    return this.db.webhookDelivery.findFirst({ where: { id, webhookId }, include: withAttempts });
  }

  getWithAttempts(id: string): Promise<DeliveryWithAttempts> {
    return this.db.webhookDelivery.findUniqueOrThrow({ where: { id }, include: withAttempts });
  }

  /** Due again now, unless it is being attempted right now (false then). */
  async requeue(id: string): Promise<boolean> {
    const { count } = await this.db.webhookDelivery.updateMany({
      where: { id, status: { not: 'delivering' } },
      data: { status: 'pending', nextAttemptAt: new Date(), completedAt: null },
    });
    return count > 0;
  }

  createTest(delivery: NewTestDelivery): Promise<DeliveryRow> {
    return this.db.webhookDelivery.create({ data: { ...delivery, test: true, status: 'delivering' } });
  }

  /**
   * One delivery per endpoint for an event; idempotent by (endpoint, event id), so a
   * redelivered event adds nothing. Returns how many were added.
   */
  async addForEvent(webhookIds: string[], event: FannedOutEvent): Promise<number> {
    // One statement per event (decision 0008); due at once by the database's clock, which
    // claimDue compares against.
    const { rowCount } = await this.database.pool.query(
      `INSERT INTO data.webhook_deliveries (webhook_id, workspace_id, event_id, event_type, body)
       SELECT w, $2, $3, $4, $5 FROM unnest($1::uuid[]) AS w
       ON CONFLICT (webhook_id, event_id) DO NOTHING`,
      [webhookIds, event.workspaceId, event.eventId, event.eventType, event.body],
    );
    return rowCount ?? 0;
  }

  /**
   * Claims up to `batch` due deliveries (FOR UPDATE SKIP LOCKED, so replicas share the work):
   * marks them `delivering` under a lease of `leaseSeconds`. Returns the claimed ids.
   */
  async claimDue(batch: number, leaseSeconds: number): Promise<string[]> {
    const claimed = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE data.webhook_deliveries SET status = 'delivering', lease_until = now() + make_interval(secs => ${leaseSeconds}::int)
      WHERE id IN (
        SELECT id FROM data.webhook_deliveries
        WHERE status IN ('pending', 'delivering') AND next_attempt_at <= now() AND (status = 'pending' OR lease_until < now())
        ORDER BY next_attempt_at LIMIT ${batch}
        FOR UPDATE SKIP LOCKED)
      RETURNING id::text`;
    return claimed.map((c) => c.id);
  }

  findWithWebhooks(ids: string[]): Promise<Array<DeliveryRow & { webhook: WebhookRow }>> {
    return this.db.webhookDelivery.findMany({ where: { id: { in: ids } }, include: { webhook: true } });
  }

  /** A claimed delivery whose endpoint was disabled meanwhile: cancelled, lease released. */
  async cancelForDisabledEndpoint(id: string): Promise<void> {
    await this.db.webhookDelivery.update({
      where: { id },
      data: { status: 'cancelled', leaseUntil: null, completedAt: new Date(), lastFailure: 'endpoint disabled' },
    });
  }

  /**
   * The attempt's record and the delivery's next state (lease released), in one transaction of plain statements
   * (decision 0008): every delivery attempt makes it, and Prisma's batch cost two plans each time.
   */
  async recordAttempt(deliveryId: string, attempt: RecordedAttempt, next: DeliveryAfterAttempt): Promise<void> {
    await sqlTransaction(this.database.pool, async (tx) => {
      await tx.$executeRaw`
        INSERT INTO data.webhook_delivery_attempts (delivery_id, number, started_at, duration_ms, status, failure, message)
        VALUES (${deliveryId}::uuid, ${attempt.number}, ${attempt.startedAt}, ${attempt.durationMs}, ${attempt.status},
                ${attempt.failure}, ${attempt.message})`;
      await tx.$executeRaw`
        UPDATE data.webhook_deliveries
           SET status = ${next.status}, attempts = ${next.attempts}, last_status = ${next.lastStatus},
               last_failure = ${next.lastFailure}, next_attempt_at = ${next.nextAttemptAt},
               completed_at = ${next.completedAt}, lease_until = NULL
         WHERE id = ${deliveryId}::uuid`;
    });
  }
}
