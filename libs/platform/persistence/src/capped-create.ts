import type { SqlExecutor } from './sql-transaction.js';

/** What runs a tagged statement: a Prisma transaction client or `sqlTransaction`'s executor. */
type Statements = Pick<SqlExecutor, '$executeRaw'>;

/**
 * Holds the advisory lock named `key` until the caller's transaction ends: every other
 * transaction locking the same key waits for it. The key is hashed to 64 bits
 * (hashtextextended); a collision only makes two unrelated writers wait for each other.
 */
export async function lockUntilCommit(tx: Statements, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/** A cap on how many of something one owner keeps, and the lock that serialises its creates. */
export interface Cap {
  /** Names the owner, e.g. `vault-of:<userId>`: creates under one key run one at a time. */
  lockKey: string;
  max: number;
  /** How many the owner keeps now, counted in the same transaction. */
  count: () => Promise<number>;
}

/**
 * Creates one more of something capped unless the owner already keeps `max` (null then,
 * nothing written). The count and the create run in the caller's transaction under the cap's
 * lock, so creates racing for the last places cannot pass the cap together; a count and an
 * insert without it can (two creates both count max - 1).
 */
export async function createBelowCap<T>(tx: Statements, cap: Cap, create: () => Promise<T>): Promise<T | null> {
  await lockUntilCommit(tx, cap.lockKey);
  // Counted once the lock is held: READ COMMITTED sees every create that held it before.
  if ((await cap.count()) >= cap.max) return null;
  return create();
}
