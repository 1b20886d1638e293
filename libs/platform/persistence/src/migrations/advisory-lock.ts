import type pg from 'pg';

/**
 * Prisma Migrate's own lock key, so this runner, other instances of it and a concurrent
 * `prisma migrate deploy` exclude each other. One key for the whole database: migrations
 * are short and rare, and both planes may share a database.
 */
export const MIGRATION_LOCK_KEY = 72707369;

/** Runs fn while holding a session-level advisory lock on this client's connection. */
export async function withAdvisoryLock<T>(client: pg.ClientBase, key: number, fn: () => Promise<T>): Promise<T> {
  await client.query('SELECT pg_advisory_lock($1)', [key]);
  try {
    return await fn();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [key]);
  }
}
