import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import type { AttemptRow, WebhookRow } from './rows.js';
import { WEBHOOKS_DB, type WebhooksDb } from './webhooks-database.js';

export interface NewWebhook {
  workspaceId: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
  createdBy: string;
  headersSealed: string | null;
  headerNames: string[];
}

export interface WebhookChanges {
  name?: string;
  url?: string;
  events?: string[];
  enabled?: boolean;
  headersSealed?: string | null;
  headerNames?: string[];
  disabledReason?: string | null;
  disabledAt?: Date | null;
  failingSince?: Date | null;
}

export type { AttemptRow, WebhookRow };

/** Webhook endpoints, their signing secrets and their health. */
@Injectable()
export class WebhooksRepository {
  constructor(
    @Inject(WEBHOOKS_DB) private readonly db: WebhooksDb,
    /** The process's pool (never null here: WEBHOOKS_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  listForWorkspace(workspaceId: string): Promise<WebhookRow[]> {
    return this.db.webhook.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  findInWorkspace(id: string, workspaceId: string): Promise<WebhookRow | null> {
    return this.db.webhook.findFirst({ where: { id, workspaceId } });
  }

  /** The enabled endpoints of a workspace that selected an event kind, oldest first. */
  listSubscribed(workspaceId: string, eventType: string): Promise<WebhookRow[]> {
    return this.db.webhook.findMany({
      where: { workspaceId, enabled: true, events: { has: eventType } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * The ids of the enabled endpoints of a workspace that selected an event kind. Asked for every
   * event of every workspace, most of which have no endpoint: a plain statement (decision 0008).
   */
  async subscribedIds(workspaceId: string, eventType: string): Promise<string[]> {
    const { rows } = await this.database.pool.query<{ id: string }>(
      `SELECT id::text FROM data.webhooks WHERE workspace_id = $1 AND enabled AND $2 = ANY(events)`,
      [workspaceId, eventType],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Creates an endpoint with its first signing secret, unless the workspace already has
   * `max` endpoints (null then, nothing written). Creates are serialised per workspace (an
   * advisory lock in the transaction) so the cap holds under concurrency.
   */
  createWithSecret(webhook: NewWebhook, secretSealed: string, max: number): Promise<WebhookRow | null> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhooks:${webhook.workspaceId}`}))`;
      if ((await tx.webhook.count({ where: { workspaceId: webhook.workspaceId } })) >= max) return null;
      const created = await tx.webhook.create({ data: webhook });
      await tx.webhookSecret.create({ data: { webhookId: created.id, secretSealed } });
      return created;
    });
  }

  update(id: string, changes: WebhookChanges): Promise<WebhookRow> {
    return this.db.webhook.update({ where: { id }, data: changes });
  }

  /** Deliveries and their history go with it (cascade). */
  async delete(id: string): Promise<void> {
    await this.db.webhook.deleteMany({ where: { id } });
  }

  /**
   * A new signing secret; older secrets still in an overlap end no later than `expiresAt`,
   * expired ones are dropped. One transaction.
   */
  async rotateSecret(webhookId: string, secretSealed: string, expiresAt: Date): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.webhookSecret.updateMany({
        where: { webhookId, OR: [{ expiresAt: null }, { expiresAt: { gt: expiresAt } }] },
        data: { expiresAt },
      });
      await tx.webhookSecret.deleteMany({ where: { webhookId, expiresAt: { lte: new Date() } } });
      await tx.webhookSecret.create({ data: { webhookId, secretSealed } });
    });
  }

  /** When each webhook's previous secrets stop signing (only webhooks inside an overlap). */
  async overlapEnds(webhookIds: string[]): Promise<Map<string, Date>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.db.webhookSecret.groupBy({
      by: ['webhookId'],
      where: { webhookId: { in: webhookIds }, expiresAt: { gt: new Date() } },
      _max: { expiresAt: true },
    });
    return new Map(rows.filter((r) => r._max.expiresAt).map((r) => [r.webhookId, r._max.expiresAt!]));
  }

  /** The sealed secrets that sign a delivery at `now`: the current one and any still in their overlap. */
  /** Read at every delivery attempt: a plain statement (decision 0008). */
  async signingSecretsSealed(webhookId: string, now: Date): Promise<string[]> {
    const { rows } = await this.database.pool.query<{ secret_sealed: string }>(
      `SELECT secret_sealed FROM data.webhook_secrets
        WHERE webhook_id = $1 AND (expires_at IS NULL OR expires_at > $2)
        ORDER BY created_at DESC, id ASC`,
      [webhookId, now],
    );
    return rows.map((row) => row.secret_sealed);
  }

  /** A success clears the failure clock. Written after every successful delivery: a plain statement. */
  async recordSuccess(id: string, at: Date): Promise<void> {
    await this.database.pool.query(
      `UPDATE data.webhooks SET last_success_at = $2, failing_since = NULL, updated_at = $2 WHERE id = $1`,
      [id, at],
    );
  }

  /** The clock starts at the first failure after a success (set once, by whichever attempt is first). */
  async startFailureClock(id: string, at: Date): Promise<void> {
    await this.db.webhook.updateMany({ where: { id, failingSince: null }, data: { failingSince: at } });
  }

  /**
   * Disables an enabled endpoint and cancels its pending deliveries, in one transaction.
   * False when it was already disabled.
   */
  async disable(webhookId: string, reason: string, at: Date): Promise<boolean> {
    const [changed] = await this.db.$transaction([
      this.db.webhook.updateMany({
        where: { id: webhookId, enabled: true },
        data: { enabled: false, disabledReason: reason, disabledAt: at },
      }),
      this.db.webhookDelivery.updateMany({
        where: { webhookId, status: 'pending' },
        data: { status: 'cancelled', completedAt: at, lastFailure: `endpoint disabled (${reason})` },
      }),
    ]);
    return changed.count > 0;
  }

  /** Every webhook of the workspace, its secrets, deliveries and attempts (a moved workspace's copy removed). */
  async purgeWorkspace(workspaceId: string): Promise<number> {
    const [, { count }] = await this.db.$transaction([
      this.db.webhookDelivery.deleteMany({ where: { workspaceId } }),
      this.db.webhook.deleteMany({ where: { workspaceId } }),
    ]);
    return count;
  }
}
