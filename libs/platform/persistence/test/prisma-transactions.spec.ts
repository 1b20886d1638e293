import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/open-database.js';
import { migrate } from '../src/migrations/migrate.js';
import { createPrismaClient } from '../src/prisma/create-prisma-client.js';
import { tempDir } from './fixtures.js';

/**
 * On the embedded database every transaction queues for the one connection. Prisma's default
 * (give up after waiting 2 s) turned a busy moment into 500s; the clients wait instead.
 */
describe('interactive transactions on the embedded database', () => {
  const dir = tempDir('kw-tx');
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ dataDir: dir.path });
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
});
