import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/**
 * The transaction rule (docs/architecture.md, "One database path per component"), enforced here
 * rather than restated in comments: code running inside a Prisma interactive transaction never
 * asks the pg pool for a connection. On the embedded database the pool has one connection, held
 * by the transaction, so such a call would wait for itself until the pool's timeout; on Postgres
 * it would silently run outside the transaction. Either way it is a bug, refused at once.
 */
const transaction = new AsyncLocalStorage<{ open: boolean }>();

export class PoolInsideTransactionError extends Error {
  constructor() {
    super(
      'The pg pool was used inside a Prisma interactive transaction: run every statement of the transaction ' +
        "through the transaction's client (tx), or move the statement out of the transaction",
    );
    this.name = 'PoolInsideTransactionError';
  }
}

/** Runs a transaction's callback marked as such; work it leaves running after it settles is not. */
export function runInTransaction<T>(callback: () => Promise<T>): Promise<T> {
  const state = { open: true };
  return transaction.run(state, async () => {
    try {
      return await callback();
    } finally {
      state.open = false;
    }
  });
}

export function insideTransaction(): boolean {
  return transaction.getStore()?.open === true;
}

/** Makes the pool refuse connections asked for inside a transaction (pool.query connects too). */
export function guardPool(pool: pg.Pool): pg.Pool {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  pool.connect = ((callback?: (err: Error) => void) => {
    if (insideTransaction()) {
      const err = new PoolInsideTransactionError();
      if (typeof callback === 'function') return void process.nextTick(() => callback(err));
      return Promise.reject(err);
    }
    return connect(callback);
  }) as pg.Pool['connect'];
  return pool;
}

type TransactionFn = (arg: unknown, options?: unknown) => Promise<unknown>;

/** Marks the callbacks of a Prisma client's interactive transactions (batch transactions run no code of ours). */
export function guardTransactions<C extends object>(client: C): C {
  const target = client as unknown as { $transaction: TransactionFn };
  const original = target.$transaction.bind(client) as TransactionFn;
  target.$transaction = (arg, options) =>
    typeof arg === 'function'
      ? original((tx: unknown) => runInTransaction(() => (arg as (tx: unknown) => Promise<unknown>)(tx)), options)
      : original(arg, options);
  return client;
}
