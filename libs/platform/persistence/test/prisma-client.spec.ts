import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { migrate } from '../src/migrations/migrate.js';
import { openDatabase, type Database } from '../src/open-database.js';
import { createPrismaClient } from '../src/prisma/create-prisma-client.js';
import { tempDir } from './fixtures.js';

/** The same checks on real Postgres and on embedded PGlite. */
function prismaClientSuite(open: () => Promise<{ db: Database; cleanup: () => Promise<void> }>) {
  let db: Database;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ db, cleanup } = await open());
    await migrate(db.pool, 'control');
    await migrate(db.pool, 'data');
    await db.pool.query(`INSERT INTO control.installation (platform_version) VALUES ('0.1.0')`);
  });
  afterAll(async () => cleanup?.());

  it('reads the installation row with the control-plane client on the shared pool', async () => {
    const prisma = createPrismaClient('control', db.pool);
    try {
      const rows = await prisma.installation.findMany();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ platformVersion: '0.1.0' });
      expect(rows[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(rows[0]!.createdAt).toBeInstanceOf(Date);
    } finally {
      await prisma.$disconnect();
    }
    // $disconnect leaves a pool it was given open.
    expect((await db.pool.query('SELECT 1 AS ok')).rows[0].ok).toBe(1);
  });

  it('reads it with a client that owns its pool (connection string)', async () => {
    const prisma = createPrismaClient('control', db.connectionString);
    try {
      expect(await prisma.installation.count()).toBe(1);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('writes and queries the outbox with the data-plane client, JSON and transactions included', async () => {
    const prisma = createPrismaClient('data', db.pool);
    try {
      const event = await prisma.$transaction(async (tx) =>
        tx.outboxEvent.create({
          data: {
            aggregateType: 'fragment',
            aggregateId: 'f1',
            eventType: 'fragments.v1.created',
            payload: { title: 'Hello', tags: ['a'] },
          },
        }),
      );
      expect(event).toMatchObject({
        attempts: 0,
        publishedAt: null,
        headers: {},
        payload: { title: 'Hello', tags: ['a'] },
      });
      const pending = await prisma.outboxEvent.findMany({
        where: { publishedAt: null },
        orderBy: { createdAt: 'asc' },
      });
      expect(pending.map((e) => e.id)).toEqual([event.id]);
      const { rows } = await db.pool.query('SELECT payload FROM data.outbox WHERE id = $1', [event.id]);
      expect(rows[0].payload).toEqual({ title: 'Hello', tags: ['a'] });
    } finally {
      await prisma.$disconnect();
    }
  });
}

describeWith(['postgres'], 'Prisma clients on PostgreSQL', () => {
  prismaClientSuite(async () => {
    const testDb = await createTestDatabase('kw_prisma');
    const db = await openDatabase({ databaseUrl: testDb.url, dataDir: '/nonexistent' });
    expect(db.embedded).toBeUndefined();
    return {
      db,
      cleanup: async () => {
        await db.close();
        await testDb.drop();
      },
    };
  });
});

describe('Prisma clients on embedded PGlite', () => {
  prismaClientSuite(async () => {
    const dir = tempDir('kw-prisma-pglite');
    const db = await openDatabase({ dataDir: dir.path, engine: 'pglite' });
    return {
      db,
      cleanup: async () => {
        await db.close();
        dir.remove();
      },
    };
  });
});

describe('Prisma clients on the embedded PostgreSQL server', () => {
  prismaClientSuite(async () => {
    const dir = tempDir('kw-prisma-server');
    const db = await openDatabase({ dataDir: dir.path, engine: 'postgres' });
    expect(db.embedded).toBe('postgres');
    return {
      db,
      cleanup: async () => {
        await db.close();
        dir.remove();
      },
    };
  });
});
