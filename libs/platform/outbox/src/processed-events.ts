import type { SqlExecutor } from '@kw/platform-persistence';

type Tx = Pick<SqlExecutor, '$executeRaw' | '$queryRaw'>;

/**
 * Records that `consumer` handled `eventId`, inside the transaction of the effect. False when
 * it had already been recorded: the caller rolls back (or skips) so the effect happens once.
 */
export async function recordProcessedEvent(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
  const inserted =
    await tx.$executeRaw`INSERT INTO data.processed_events (consumer, event_id) VALUES (${consumer}, ${eventId}::uuid) ON CONFLICT DO NOTHING`;
  return inserted === 1;
}

export async function wasEventProcessed(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<
    unknown[]
  >`SELECT 1 FROM data.processed_events WHERE consumer = ${consumer} AND event_id = ${eventId}::uuid`;
  return rows.length > 0;
}
