import type pg from 'pg';
import { sqlTransaction } from '@kw/platform-persistence';
import type { DomainEvent, EventBus, EventLogger } from './event-bus.js';
import { onOutboxWritten } from './outbox-written.js';
import { PollingLoop } from './polling-loop.js';
import { publishTraced } from './traced-events.js';

export interface OutboxRelayOptions {
  /** Rows claimed per transaction. */
  batchSize?: number;
  /** Pause when the outbox is empty. */
  pollIntervalMs?: number;
}

interface OutboxRow {
  id: string;
  aggregate_type: string;
  aggregate_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  headers: Record<string, string> | null;
  created_at: Date;
}

const MAX_ERROR_PAUSE_MS = 10_000;

/**
 * Publishes the rows of data.outbox to the event bus and marks them published. Rows are
 * claimed with FOR UPDATE SKIP LOCKED, so relays in several replicas share the work and each
 * row is published by one of them; a relay that dies before its commit leaves its rows to
 * the next claim (published again: the bus deduplicates by event id, consumers by event id).
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly loop: PollingLoop;
  private stopListening?: () => void;

  constructor(
    /** The process's pool: a pass is a plain `pg` transaction (decision 0008), one per commit that wrote rows. */
    private readonly pool: pg.Pool,
    private readonly bus: EventBus,
    private readonly logger: EventLogger,
    options: OutboxRelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.loop = new PollingLoop(
      async () => {
        const count = await this.relayBatch();
        if (count > 0) this.logger.debug({ count }, 'outbox events published');
        return count === this.batchSize;
      },
      {
        intervalMs: options.pollIntervalMs ?? 250,
        maxErrorPauseMs: MAX_ERROR_PAUSE_MS,
        onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'outbox relay failed; retrying'),
      },
    );
  }

  start(): void {
    this.loop.start();
    this.stopListening ??= onOutboxWritten(() => this.loop.poke());
  }

  /** Looks at the outbox now instead of at the next poll (after a local commit, for instance). */
  poke(): void {
    this.loop.poke();
  }

  async stop(): Promise<void> {
    this.stopListening?.();
    this.stopListening = undefined;
    await this.loop.stop();
  }

  /** Publishes one batch; returns how many rows were published. */
  async relayBatch(): Promise<number> {
    return sqlTransaction(this.pool, async (tx) => {
      const rows = await tx.$queryRaw<OutboxRow[]>`
        SELECT id::text, aggregate_type, aggregate_id, event_type, payload, headers, created_at
        FROM data.outbox WHERE published_at IS NULL
        ORDER BY created_at, id LIMIT ${this.batchSize}
        FOR UPDATE SKIP LOCKED`;
      const published: string[] = [];
      let failure: { id: string; err: unknown } | undefined;
      // In order, stopping at the first failure so a later event never overtakes an earlier one.
      for (const row of rows) {
        try {
          await publishTraced(this.bus, toEvent(row));
          published.push(row.id);
        } catch (err) {
          failure = { id: row.id, err };
          break;
        }
      }
      if (published.length > 0) {
        await tx.$executeRaw`UPDATE data.outbox SET published_at = now(), attempts = attempts + 1 WHERE id = ANY(${published}::uuid[])`;
      }
      if (failure) {
        await tx.$executeRaw`UPDATE data.outbox SET attempts = attempts + 1 WHERE id = ${failure.id}::uuid`;
        this.logger.warn({ err: failure.err, eventId: failure.id }, 'outbox event not published; will retry');
        if (published.length === 0) throw failure.err;
      }
      return published.length;
    });
  }
}

function toEvent(row: OutboxRow): DomainEvent {
  return {
    id: row.id,
    aggregateType: row.aggregate_type,
    aggregateId: row.aggregate_id,
    eventType: row.event_type,
    payload: row.payload ?? {},
    headers: row.headers ?? {},
    occurredAt: new Date(row.created_at).toISOString(),
  };
}
