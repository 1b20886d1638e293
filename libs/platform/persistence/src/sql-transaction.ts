import type pg from 'pg';
import { Prisma } from './generated/data/client.js';
import { runInTransaction } from './transaction-rule.js';

/**
 * The statements of a transaction as Prisma's raw API spells them (tagged templates, or text and
 * positional values). A Prisma interactive transaction is one; `sqlTransaction` gives another,
 * so code written against this runs in either.
 */
export interface SqlExecutor {
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): PromiseLike<number>;
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): PromiseLike<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/**
 * Prisma's raw API over plain `pg`: each statement on what `target` gives (a pool, or the client
 * of a transaction). Rows come back as `pg` parses them (int8 and numeric as strings).
 */
export function sqlStatements(target: () => Pick<pg.Pool | pg.PoolClient, 'query'>): SqlExecutor {
  const statement = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]) =>
    query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
  return {
    $executeRaw: async (query, ...values) => {
      const { text, values: params } = statement(query, values);
      return (await target().query(text, params)).rowCount ?? 0;
    },
    $queryRaw: async <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      const { text, values: params } = statement(query, values);
      return (await target().query(text, params)).rows as R;
    },
    $executeRawUnsafe: async (text, ...values) => (await target().query(text, values)).rowCount ?? 0,
    $queryRawUnsafe: async <R>(text: string, ...values: unknown[]) => (await target().query(text, values)).rows as R,
  };
}

/**
 * Runs `work` in a transaction on one connection of the pool, with plain `pg` (BEGIN, the
 * statements, COMMIT; ROLLBACK when `work` throws). For hot write paths: a Prisma interactive
 * transaction costs its client and query compiler on every statement (decision 0008). Rows come
 * back as `pg` parses them (int8 and numeric as strings, unlike Prisma). Inside `work` the pool
 * refuses connections, as in a Prisma transaction (transaction-rule.ts).
 */
export async function sqlTransaction<T>(pool: pg.Pool, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const tx = sqlStatements(() => client);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await runInTransaction(() => work(tx));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw err;
  } finally {
    // A connection whose ROLLBACK failed is in an unknown state: the pool drops it.
    client.release(broken);
  }
}
