import { Inject, Injectable } from '@nestjs/common';
import { GroupCommit, type Database } from '@kw/platform-persistence';
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

/** A delivery due again now (redelivery): see DeliveriesRepository.requeue. */
const REQUEUE = `
  UPDATE data.webhook_deliveries d
     SET status = 'pending', next_attempt_at = now(),
         status_before_redelivery = CASE WHEN d.status IN ('succeeded', 'failed', 'cancelled') THEN d.status
                                         ELSE d.status_before_redelivery END
    FROM data.webhooks w
   WHERE d.id = $1 AND w.id = d.webhook_id AND w.enabled AND d.status <> 'delivering'`;

/** A claimed delivery of a disabled endpoint: cancelled, or a redelivery's outcome restored. */
const CANCEL_FOR_DISABLED_ENDPOINT = `
  UPDATE data.webhook_deliveries
     SET status = coalesce(status_before_redelivery, 'cancelled'),
         completed_at = CASE WHEN status_before_redelivery IS NULL THEN now() ELSE completed_at END,
         last_failure = CASE WHEN status_before_redelivery IS NULL THEN 'endpoint disabled' ELSE last_failure END,
         lease_until = NULL, status_before_redelivery = NULL
   WHERE id = $1`;

const withAttempts = { attemptLog: { orderBy: { number: 'asc' as const } } };

interface AttemptRecord {
  deliveryId: string;
  attempt: RecordedAttempt;
  next: DeliveryAfterAttempt;
}

/**
 * The attempts of a batch and each delivery's next state (lease released), in one statement:
 * the attempt rows are inserted for the deliveries that still exist (an endpoint deleted
 * meanwhile took its deliveries along).
 */
const RECORD_ATTEMPTS = `
  WITH a AS (
    SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
                         $8::text[], $9::int[], $10::int[], $11::text[], $12::timestamptz[], $13::timestamptz[])
      AS a(delivery_id, number, started_at, duration_ms, status, failure, message,
           next_status, attempts, last_status, last_failure, next_attempt_at, completed_at)
  ), updated AS (
    UPDATE data.webhook_deliveries d
       SET status = a.next_status, attempts = a.attempts, last_status = a.last_status, last_failure = a.last_failure,
           next_attempt_at = a.next_attempt_at, completed_at = a.completed_at, lease_until = NULL,
           status_before_redelivery = NULL
      FROM a WHERE d.id = a.delivery_id
    RETURNING d.id
  )
  INSERT INTO data.webhook_delivery_attempts (delivery_id, number, started_at, duration_ms, status, failure, message)
  SELECT a.delivery_id, a.number, a.started_at, a.duration_ms, a.status, a.failure, a.message
    FROM a JOIN updated ON updated.id = a.delivery_id`;

/** Due at once by the database's clock, which CLAIM_DUE compares against. */
const ADD_FOR_EVENTS = `
  INSERT INTO data.webhook_deliveries (webhook_id, workspace_id, event_id, event_type, body)
  SELECT w.id, e.workspace_id, e.event_id, e.event_type, e.body
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS e(workspace_id, event_id, event_type, body)
    JOIN data.webhooks w ON w.workspace_id = e.workspace_id AND w.enabled AND e.event_type = ANY(w.events)
  ON CONFLICT (webhook_id, event_id) DO NOTHING
  RETURNING event_id::text`;

const DELIVERY_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.workspace_id AS "workspaceId", d.event_id AS "eventId",
  d.event_type AS "eventType", d.body, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt",
  d.lease_until AS "leaseUntil", d.last_status AS "lastStatus", d.last_failure AS "lastFailure", d.test,
  d.created_at AS "createdAt", d.completed_at AS "completedAt"`;
const WEBHOOK_JSON = `json_build_object('id', w.id, 'workspaceId', w.workspace_id, 'name', w.name, 'url', w.url,
  'events', w.events, 'headersSealed', w.headers_sealed, 'headerNames', w.header_names, 'enabled', w.enabled,
  'disabledReason', w.disabled_reason, 'disabledAt', w.disabled_at, 'lastSuccessAt', w.last_success_at,
  'failingSince', w.failing_since, 'createdBy', w.created_by, 'createdAt', w.created_at, 'updatedAt', w.updated_at)`;

/**
 * Claims up to $1 due deliveries (FOR UPDATE SKIP LOCKED, so replicas share the work), marks
 * them \`delivering\` under a lease of $2 seconds, and returns them with their endpoints.
 */
// Due deliveries, at most $1, oldest first, and at most an endpoint's room of each endpoint:
// $3/$4 name the endpoints this worker already sends to and how many more each may take, $5
// is the room of any other. Endpoints without room are not even read, so one endpoint's backlog
// never hides the deliveries of others behind it (the candidates are the oldest $1 * 4).
const CLAIM_DUE = `
  WITH busy AS (SELECT * FROM unnest($3::uuid[], $4::int[]) AS b(webhook_id, room)),
  candidates AS (
    SELECT id, webhook_id, next_attempt_at FROM data.webhook_deliveries
    WHERE status IN ('pending', 'delivering') AND next_attempt_at <= now() AND (status = 'pending' OR lease_until < now())
      AND webhook_id NOT IN (SELECT webhook_id FROM busy WHERE room <= 0)
    ORDER BY next_attempt_at LIMIT $1 * 4
    FOR UPDATE SKIP LOCKED),
  picked AS (
    SELECT id FROM (
      SELECT c.id, c.next_attempt_at, coalesce(b.room, $5::int) AS room,
             row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.next_attempt_at) AS n
      FROM candidates c LEFT JOIN busy b ON b.webhook_id = c.webhook_id) ranked
    WHERE n <= room ORDER BY next_attempt_at LIMIT $1),
  claimed AS (
    UPDATE data.webhook_deliveries SET status = 'delivering', lease_until = now() + make_interval(secs => $2::int)
    WHERE id IN (SELECT id FROM picked)
    RETURNING *)
  SELECT ${DELIVERY_COLUMNS}, ${WEBHOOK_JSON} AS webhook
    FROM claimed d JOIN data.webhooks w ON w.id = d.webhook_id`;

/** How many deliveries a claim may take of each endpoint. */
export interface EndpointRoom {
  /** Endpoints the worker sends to now, and how many more each may take (0: none). */
  busy: ReadonlyMap<string, number>;
  /** Any other endpoint. */
  other: number;
}

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

  /**
   * Due again now, unless it is being attempted right now or its endpoint is disabled (false
   * then). A finished delivery keeps its outcome (status, completion, last failure) until the
   * redelivery's attempt is recorded: its status is kept aside, to be restored if the redelivery
   * is cancelled.
   */
  async requeue(id: string): Promise<boolean> {
    const { rowCount } = await this.database.pool.query(REQUEUE, [id]);
    return (rowCount ?? 0) > 0;
  }

  createTest(delivery: NewTestDelivery): Promise<DeliveryRow> {
    return this.db.webhookDelivery.create({ data: { ...delivery, test: true, status: 'delivering' } });
  }

  /**
   * One delivery per enabled endpoint that selected the event's kind; idempotent by (endpoint,
   * event id), so a redelivered event adds nothing. Returns how many were added. Every event of
   * every workspace asks it: the events fanned out while one statement is in flight go together
   * in the next (group commit, one plain statement: decision 0008).
   */
  addForEvent(event: FannedOutEvent): Promise<number> {
    return this.fanOutWrites.add(event);
  }

  private readonly fanOutWrites = new GroupCommit<FannedOutEvent, number>(async (events) => {
    const { rows } = await this.database.pool.query<{ event_id: string }>(ADD_FOR_EVENTS, [
      events.map((e) => e.workspaceId),
      events.map((e) => e.eventId),
      events.map((e) => e.eventType),
      events.map((e) => e.body),
    ]);
    const added = new Map<string, number>();
    for (const { event_id } of rows) added.set(event_id, (added.get(event_id) ?? 0) + 1);
    return events.map((e) => added.get(e.eventId) ?? 0);
  });

  /**
   * Claims up to `batch` due deliveries (FOR UPDATE SKIP LOCKED, so replicas share the work):
   * marks them `delivering` under a lease of `leaseSeconds`, and returns them with their
   * endpoints. One plain statement (decision 0008): the worker asks it for every batch.
   */
  async claimDue(
    batch: number,
    leaseSeconds: number,
    room: EndpointRoom = { busy: new Map(), other: batch },
  ): Promise<Array<DeliveryRow & { webhook: WebhookRow }>> {
    const { rows } = await this.database.pool.query<DeliveryRow & { webhook: Record<string, unknown> }>(CLAIM_DUE, [
      batch,
      leaseSeconds,
      [...room.busy.keys()],
      [...room.busy.values()],
      room.other,
    ]);
    return rows.map((row) => ({ ...row, webhook: webhookOfJson(row.webhook) }));
  }

  /**
   * A claimed delivery whose endpoint was disabled meanwhile: cancelled, lease released. A
   * redelivery of a finished delivery gets its recorded outcome back instead.
   */
  async cancelForDisabledEndpoint(id: string): Promise<void> {
    await this.database.pool.query(CANCEL_FOR_DISABLED_ENDPOINT, [id]);
  }

  /**
   * The attempt's record and the delivery's next state (lease released). Every attempt makes
   * it, so the attempts finished while one write is in flight are recorded together by the
   * next (group commit, one plain statement: decision 0008).
   */
  recordAttempt(deliveryId: string, attempt: RecordedAttempt, next: DeliveryAfterAttempt): Promise<void> {
    return this.attemptWrites.add({ deliveryId, attempt, next });
  }

  private readonly attemptWrites = new GroupCommit<AttemptRecord>(async (records) => {
    const column = <T>(read: (r: AttemptRecord) => T) => records.map(read);
    await this.database.pool.query(RECORD_ATTEMPTS, [
      column((r) => r.deliveryId),
      column((r) => r.attempt.number),
      column((r) => r.attempt.startedAt),
      column((r) => r.attempt.durationMs),
      column((r) => r.attempt.status),
      column((r) => r.attempt.failure),
      column((r) => r.attempt.message),
      column((r) => r.next.status),
      column((r) => r.next.attempts),
      column((r) => r.next.lastStatus),
      column((r) => r.next.lastFailure),
      column((r) => r.next.nextAttemptAt),
      column((r) => r.next.completedAt),
    ]);
  });
}

/** An endpoint row from CLAIM_DUE's json_build_object: timestamps arrive as ISO text. */
function webhookOfJson(json: Record<string, unknown>): WebhookRow {
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  return {
    ...(json as unknown as WebhookRow),
    disabledAt: date(json.disabledAt),
    lastSuccessAt: date(json.lastSuccessAt),
    failingSince: date(json.failingSince),
    createdAt: date(json.createdAt)!,
    updatedAt: date(json.updatedAt)!,
  };
}
