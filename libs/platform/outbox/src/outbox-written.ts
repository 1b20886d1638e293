/**
 * In-process word that outbox rows were just committed, so that the relay of this process
 * publishes them now instead of at its next poll (OUTBOX_POLL_INTERVAL_MS): a fragment starts
 * enrichment, a file its processing, a webhook its delivery without that wait. Rows another
 * process committed are still found by polling. Say it after the commit, never inside the
 * transaction: a relay woken before the commit finds nothing and sleeps a whole interval.
 */
const listeners = new Set<() => void>();

export function outboxWritten(): void {
  for (const listener of listeners) listener();
}

/** Calls `listener` after each `outboxWritten()`; answers the function that stops it. */
export function onOutboxWritten(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Awaits `write` (a statement or transaction that wrote outbox rows), then says so. */
export async function announcingOutbox<T>(write: Promise<T>): Promise<T> {
  const result = await write;
  outboxWritten();
  return result;
}
