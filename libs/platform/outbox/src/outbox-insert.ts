/** One row for data.outbox, as a writer gives it (id, created_at and the publish state are the table's). */
export interface NewOutboxEvent {
  aggregateType: string;
  aggregateId: string;
  /** e.g. `fragment.created`: consumers subscribe by it. */
  eventType: string;
  /** Stored as jsonb. */
  payload: object;
  /** Stored as jsonb; `{}` when absent. */
  headers?: Record<string, string>;
}

/** An SQL statement and its parameters, in the form both `pg` (`query({ text, values })`) and Prisma take. */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

/** What can run a statement with positional parameters: a Prisma client or a Prisma transaction. */
export interface OutboxExecutor {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

const COLUMNS = 'aggregate_type, aggregate_id, event_type, payload, headers';
const PER_ROW = 5;

/**
 * THE writer of data.outbox: the INSERT of `events` (one row each, in order) as SQL text and
 * parameters. Every outbox row of the platform is written with it, so the columns and their
 * encoding (payload and headers as jsonb) are stated once. `firstParam` numbers the first
 * placeholder, for a statement that has parameters before it: a `pg` CTE that inserts a row
 * and its event in one statement appends the text after its own `WITH ... AS (...)`.
 */
export function outboxInsert(events: NewOutboxEvent | readonly NewOutboxEvent[], firstParam = 1): SqlStatement {
  const rows = Array.isArray(events) ? (events as readonly NewOutboxEvent[]) : [events as NewOutboxEvent];
  if (rows.length === 0) throw new Error('outboxInsert needs at least one event');
  const values: unknown[] = [];
  const tuples = rows.map((event, i) => {
    const n = firstParam + i * PER_ROW;
    values.push(
      event.aggregateType,
      event.aggregateId,
      event.eventType,
      JSON.stringify(event.payload),
      JSON.stringify(event.headers ?? {}),
    );
    return `($${n}, $${n + 1}, $${n + 2}, $${n + 3}::jsonb, $${n + 4}::jsonb)`;
  });
  return { text: `INSERT INTO data.outbox (${COLUMNS}) VALUES ${tuples.join(', ')}`, values };
}

/**
 * Writes `events` to the outbox through a Prisma client or, to commit them with a change, the
 * Prisma transaction of that change. Returns the number of rows written (0 for no events).
 */
export async function appendOutbox(
  executor: OutboxExecutor,
  events: NewOutboxEvent | readonly NewOutboxEvent[],
): Promise<number> {
  if (Array.isArray(events) && events.length === 0) return 0;
  const { text, values } = outboxInsert(events);
  return executor.$executeRawUnsafe(text, ...values);
}
