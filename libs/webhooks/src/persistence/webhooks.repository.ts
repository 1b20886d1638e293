import { Inject, Injectable } from '@nestjs/common';
import { GroupCommit, type Database, createBelowCap } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import type { SealedColumn } from '@kw/platform-secret-box';
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

/** A delivery's outcome for its endpoint's health, in the order the attempts finished. */
interface EndpointOutcome {
  id: string;
  ok: boolean;
  at: Date;
}

/**
 * The outcomes of a batch, one row per endpoint: `success_at` is its last success, `failing_from`
 * the first failure after that (null when the last outcome was a success). A success clears
 * the failure clock; a failure starts it unless it runs already (or restarts it after a
 * success of the same batch).
 */
const RECORD_OUTCOMES = `
  UPDATE data.webhooks w
     SET last_success_at = coalesce(u.success_at, w.last_success_at),
         failing_since = CASE WHEN u.failing_from IS NULL THEN NULL
                              WHEN u.success_at IS NOT NULL THEN u.failing_from
                              ELSE coalesce(w.failing_since, u.failing_from) END,
         updated_at = greatest(w.updated_at, coalesce(u.failing_from, u.success_at))
    FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS u(id, success_at, failing_from)
   WHERE w.id = u.id`;

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
   * Creates an endpoint with its first signing secret, unless the workspace already has
   * `max` endpoints (null then, nothing written). Creates are serialised per workspace (an
   * advisory lock in the transaction) so the cap holds under concurrency.
   */
  createWithSecret(webhook: NewWebhook, secretSealed: string, max: number): Promise<WebhookRow | null> {
    return this.db.$transaction((tx) =>
      createBelowCap(
        tx,
        {
          lockKey: `webhooks-of:${webhook.workspaceId}`,
          max,
          count: () => tx.webhook.count({ where: { workspaceId: webhook.workspaceId } }),
        },
        async () => {
          const created = await tx.webhook.create({ data: webhook });
          await tx.webhookSecret.create({ data: { webhookId: created.id, secretSealed } });
          return created;
        },
      ),
    );
  }

  /** Null when the endpoint was deleted meanwhile. */
  async update(id: string, changes: WebhookChanges): Promise<WebhookRow | null> {
    const { count } = await this.db.webhook.updateMany({ where: { id }, data: changes });
    return count === 0 ? null : this.db.webhook.findUnique({ where: { id } });
  }

  /** Deliveries and their history go with it (cascade). False when it was deleted meanwhile. */
  async delete(id: string): Promise<boolean> {
    const { count } = await this.db.webhook.deleteMany({ where: { id } });
    return count > 0;
  }

  /**
   * A new signing secret; the one it replaces signs until `expiresAt`, and any older previous
   * secret (a rotation during an overlap) is dropped: at most two secrets sign. One transaction;
   * rotations of one endpoint take turns (the row lock), so concurrent ones cannot leave two
   * current secrets.
   */
  async rotateSecret(webhookId: string, secretSealed: string, expiresAt: Date): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      // Keeps a concurrent delete of the endpoint, and other rotations of it, out until the new
      // secret is stored.
      const held = await tx.$queryRaw<
        unknown[]
      >`SELECT 1 FROM data.webhooks WHERE id = ${webhookId}::uuid FOR NO KEY UPDATE`;
      if (held.length === 0) return false;
      await tx.webhookSecret.deleteMany({ where: { webhookId, expiresAt: { not: null } } });
      await tx.webhookSecret.updateMany({ where: { webhookId, expiresAt: null }, data: { expiresAt } });
      await tx.webhookSecret.create({ data: { webhookId, secretSealed } });
      return true;
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

  /**
   * The sealed secrets that sign a delivery at `now`: the current one and any still in their
   * overlap. Read for every endpoint of every delivery batch: a plain statement (decision 0008).
   */
  async signingSecretsSealed(webhookId: string, now: Date): Promise<string[]> {
    const { rows } = await this.database.pool.query<{ secret_sealed: string }>(
      `SELECT secret_sealed FROM data.webhook_secrets
        WHERE webhook_id = $1 AND (expires_at IS NULL OR expires_at > $2)
        ORDER BY created_at DESC, id ASC`,
      [webhookId, now],
    );
    return rows.map((row) => row.secret_sealed);
  }

  /** A success clears the failure clock. */
  recordSuccess(id: string, at: Date): Promise<void> {
    return this.outcomeWrites.add({ id, ok: true, at });
  }

  /** The clock starts at the first failure after a success (set once, by whichever attempt is first). */
  startFailureClock(id: string, at: Date): Promise<void> {
    return this.outcomeWrites.add({ id, ok: false, at });
  }

  /**
   * Every delivery attempt writes its endpoint's health: the outcomes that finish while one
   * write is in flight go together in the next, one row per endpoint (a burst of deliveries
   * to one endpoint no longer queues on that row's lock).
   */
  private readonly outcomeWrites = new GroupCommit<EndpointOutcome>(async (outcomes) => {
    const byEndpoint = new Map<string, { successAt: Date | null; failingFrom: Date | null }>();
    for (const { id, ok, at } of outcomes) {
      const state = byEndpoint.get(id) ?? { successAt: null, failingFrom: null };
      if (ok) byEndpoint.set(id, { successAt: at, failingFrom: null });
      else byEndpoint.set(id, { ...state, failingFrom: state.failingFrom ?? at });
    }
    const ids = [...byEndpoint.keys()];
    await this.database.pool.query(RECORD_OUTCOMES, [
      ids,
      ids.map((id) => byEndpoint.get(id)!.successAt),
      ids.map((id) => byEndpoint.get(id)!.failingFrom),
    ]);
  });

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
      // A pending redelivery of a finished delivery gets its recorded outcome back.
      this.db.$executeRaw`UPDATE data.webhook_deliveries
           SET status = coalesce(status_before_redelivery, 'cancelled'),
               completed_at = CASE WHEN status_before_redelivery IS NULL THEN ${at} ELSE completed_at END,
               last_failure = CASE WHEN status_before_redelivery IS NULL THEN ${`endpoint disabled (${reason})`}
                                   ELSE last_failure END,
               status_before_redelivery = NULL
         WHERE webhook_id = ${webhookId}::uuid AND status = 'pending'`,
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

  /**
   * The endpoints' sealed header values as a column to re-seal (a master key rotation): updated
   * in place, `updated_at` untouched (nothing a user set changed).
   */
  get sealedHeaders(): SealedColumn {
    return this.sealedColumn(
      `SELECT id::text AS id, headers_sealed AS sealed FROM data.webhooks
        WHERE headers_sealed IS NOT NULL AND left(headers_sealed, length($1)) <> $1
          AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id LIMIT $3`,
      `UPDATE data.webhooks SET headers_sealed = $3 WHERE id = $1::uuid AND headers_sealed = $2`,
    );
  }

  /** The signing secrets, sealed, as a column to re-seal (a master key rotation). */
  get sealedSecrets(): SealedColumn {
    return this.sealedColumn(
      `SELECT id::text AS id, secret_sealed AS sealed FROM data.webhook_secrets
        WHERE left(secret_sealed, length($1)) <> $1
          AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id LIMIT $3`,
      `UPDATE data.webhook_secrets SET secret_sealed = $3 WHERE id = $1::uuid AND secret_sealed = $2`,
    );
  }

  /** `select`: ($1 prefix, $2 after id, $3 limit) → (id, sealed); `update`: ($1 id, $2 from, $3 to). */
  private sealedColumn(select: string, update: string): SealedColumn {
    const pool = this.database.pool;
    return {
      async notUnder(prefix, afterId, limit) {
        return (await pool.query<{ id: string; sealed: string }>(select, [prefix, afterId, limit])).rows;
      },
      async replace(id, from, to) {
        return ((await pool.query(update, [id, from, to])).rowCount ?? 0) > 0;
      },
    };
  }
}
