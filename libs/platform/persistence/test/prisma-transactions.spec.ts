import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/open-database.js';
import { migrate } from '../src/migrations/migrate.js';
import { createPrismaClient } from '../src/prisma/create-prisma-client.js';
import { PoolInsideTransactionError } from '../src/transaction-rule.js';
import { tempDir } from './fixtures.js';

/**
 * On embedded PGlite every transaction queues for the one connection. Prisma's default
 * (give up after waiting 2 s) turned a busy moment into 500s; the clients wait instead.
 */
describe('interactive transactions on embedded PGlite', () => {
  const dir = tempDir('kw-tx');
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ dataDir: dir.path, engine: 'pglite' });
    await migrate(database.pool, 'data');
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    dir.remove();
  });

  it('waits for a transaction that holds the only connection longer than 2 s', async () => {
    const db = createPrismaClient('data', database.pool);
    const order: string[] = [];
    const slow = db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_sleep(3)::text AS slept`;
      order.push('slow');
    });
    await new Promise((r) => setTimeout(r, 100));
    const queued = db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      order.push('queued');
    });
    await Promise.all([slow, queued]);
    expect(order).toEqual(['slow', 'queued']);
  }, 20_000);

  it('refuses the pool inside an interactive transaction at once, instead of waiting for its own connection', async () => {
    const db = createPrismaClient('data', database.pool);
    const started = Date.now();
    const attempt = db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      await database.pool.query('SELECT 1');
    });
    await expect(attempt).rejects.toBeInstanceOf(PoolInsideTransactionError);
    // Without the rule this waits for the pool's 30 s connection timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    // The Prisma client outside its own transaction (the same deadlock, through the adapter).
    await expect(
      db.$transaction(async () => {
        await db.outboxEvent.count();
      }),
    ).rejects.toThrow(/inside a Prisma interactive transaction/);
  }, 20_000);

  it('lets the pool be used again once the transaction settled, even by work it started', async () => {
    const db = createPrismaClient('data', database.pool);
    let later: Promise<unknown> = Promise.resolve();
    await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      later = new Promise((r) => setTimeout(r, 50)).then(() => database.pool.query('SELECT 2 AS two'));
    });
    await expect(later).resolves.toMatchObject({ rows: [{ two: 2 }] });
    expect((await database.pool.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
  }, 20_000);
});
