import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushTracing, startTracing, stopTracing, withSpan } from '@kw/platform-tracing';
import { createTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { migrate } from '../src/migrations/migrate.js';
import { openDatabase, type Database } from '../src/open-database.js';
import { createPrismaClient } from '../src/prisma/create-prisma-client.js';
import { PoolInsideTransactionError } from '../src/transaction-rule.js';
import { tempDir } from './fixtures.js';

interface Exported {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

const exported: Exported[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            exported.push({
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              attributes: Object.fromEntries(
                (s.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                  a.key,
                  Object.values(a.value)[0],
                ]),
              ),
            });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const { port } = receiver.address() as AddressInfo;
  await startTracing({ serviceName: 'kw-test', endpoint: `http://127.0.0.1:${port}`, scheduledDelayMs: 10 });
});

afterAll(async () => {
  await stopTracing();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** With tracing on: the same checks on real Postgres and on embedded PGlite. */
function tracedSuite(open: () => Promise<{ db: Database; cleanup: () => Promise<void> }>) {
  let db: Database;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ db, cleanup } = await open());
    await migrate(db.pool, 'data');
  });
  afterAll(async () => cleanup?.());

  it('spans Prisma operations and their SQL inside a traced unit of work; transactions still work', async () => {
    const prisma = createPrismaClient('data', db.pool);
    const before = exported.length;
    try {
      const { traceId, id } = await withSpan('unit of work', {}, async (span) => {
        const event = await prisma.$transaction(async (tx) =>
          tx.outboxEvent.create({
            data: { aggregateType: 'fragment', aggregateId: 'f1', eventType: 'traced', payload: { secret: 'p4y' } },
          }),
        );
        // A batch transaction and the pool's own query (callback form inside pg-pool).
        const [count] = await prisma.$transaction([
          prisma.outboxEvent.count({ where: { id: event.id } }),
          prisma.outboxEvent.findMany({ where: { id: event.id } }),
        ]);
        expect(count).toBe(1);
        const { rows } = await db.pool.query('SELECT event_type FROM data.outbox WHERE id = $1', [event.id]);
        expect(rows[0].event_type).toBe('traced');
        return { traceId: span!.spanContext().traceId, id: event.id };
      });
      // Outside a traced unit of work nothing is recorded.
      expect(await prisma.outboxEvent.count({ where: { id } })).toBe(1);
      await flushTracing();

      const spans = exported.filter((s) => s.traceId === traceId);
      const root = spans.find((s) => s.name === 'unit of work')!;
      expect(root).toBeDefined();
      const sql = spans.filter((s) => s.attributes['db.system'] === 'postgresql' && s.attributes['db.statement']);
      expect(sql.map((s) => s.attributes['db.operation'])).toEqual(expect.arrayContaining(['INSERT', 'SELECT']));
      expect(sql.some((s) => String(s.attributes['db.statement']).includes('SELECT event_type FROM data.outbox'))).toBe(
        true,
      );
      for (const s of sql) expect(String(s.attributes['db.statement'])).not.toContain('p4y');
      expect(spans.map((s) => s.name)).toEqual(
        expect.arrayContaining(['prisma OutboxEvent.create', 'prisma OutboxEvent.count']),
      );
      const ids = new Set(spans.map((s) => s.spanId));
      for (const s of spans) if (s !== root) expect(ids.has(s.parentSpanId!), s.name).toBe(true);
      expect(exported.slice(before).filter((s) => s.traceId !== traceId)).toEqual([]);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('keeps the transaction rule on the traced client and pool: the pool is refused inside a transaction', async () => {
    const prisma = createPrismaClient('data', db.pool);
    try {
      await withSpan('unit of work', {}, async () => {
        await expect(
          prisma.$transaction(async (tx) => {
            await tx.outboxEvent.count();
            await db.pool.query('SELECT 1');
          }),
        ).rejects.toBeInstanceOf(PoolInsideTransactionError);
      });
    } finally {
      await prisma.$disconnect();
    }
  });
}

describeWith(['postgres'], 'database spans on PostgreSQL', () => {
  tracedSuite(async () => {
    const testDb = await createTestDatabase('kw_traced');
    const db = await openDatabase({ databaseUrl: testDb.url, dataDir: '/nonexistent' });
    return {
      db,
      cleanup: async () => {
        await db.close();
        await testDb.drop();
      },
    };
  });
});

describe('database spans on embedded PGlite', () => {
  tracedSuite(async () => {
    const dir = tempDir('kw-traced-pglite');
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
