/** Postgres' answers to transactions that lost to another: a deadlock, a serialization failure. */
const CONFLICT_STATES = new Set(['40P01', '40001']);

/**
 * Whether an error is a transaction Postgres rolled back because it conflicted with another
 * (40P01 deadlock_detected, 40001 serialization_failure), as `pg`, Prisma's driver adapter
 * (`DriverAdapterError`, its `cause`), a Prisma raw query (P2010 with
 * `meta.driverAdapterError`) or Prisma itself (P2034) report it. Such a transaction changed
 * nothing: it may be run again.
 */
export function isTransactionConflict(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e = current as {
      code?: unknown;
      originalCode?: unknown;
      meta?: { driverAdapterError?: unknown };
      cause?: unknown;
    };
    if (e.code === 'P2034') return true;
    if (CONFLICT_STATES.has(String(e.code)) || CONFLICT_STATES.has(String(e.originalCode))) return true;
    current = e.meta?.driverAdapterError ?? e.cause;
  }
  return false;
}

/**
 * Runs a transaction again when Postgres rolled it back for a conflict (isTransactionConflict),
 * up to `attempts` times in all; any other failure, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (attempt >= attempts || !isTransactionConflict(err)) throw err;
    }
  }
}
