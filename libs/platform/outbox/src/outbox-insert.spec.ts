import { describe, expect, it } from 'vitest';
import { appendOutbox, outboxInsert, type NewOutboxEvent } from './outbox-insert.js';

const event = (n: number, headers?: Record<string, string>): NewOutboxEvent => ({
  aggregateType: 'fragment',
  aggregateId: `id-${n}`,
  eventType: 'fragment.created',
  payload: { n, nested: { a: [1, 2] } },
  ...(headers && { headers }),
});

describe('outboxInsert', () => {
  it('inserts one row with the five columns, payload and headers as jsonb', () => {
    expect(outboxInsert(event(1, { requestId: 'r' }))).toEqual({
      text:
        'INSERT INTO data.outbox (aggregate_type, aggregate_id, event_type, payload, headers) ' +
        'VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
      values: ['fragment', 'id-1', 'fragment.created', '{"n":1,"nested":{"a":[1,2]}}', '{"requestId":"r"}'],
    });
  });

  it('writes {} for absent headers', () => {
    expect(outboxInsert(event(1)).values[4]).toBe('{}');
  });

  it('numbers placeholders from firstParam, for a statement with parameters before it', () => {
    const { text, values } = outboxInsert(event(1), 18);
    expect(text.endsWith('VALUES ($18, $19, $20, $21::jsonb, $22::jsonb)')).toBe(true);
    expect(values).toHaveLength(5);
  });

  it('inserts several rows in order in one statement', () => {
    const { text, values } = outboxInsert([event(1), event(2)]);
    expect(text.endsWith('VALUES ($1, $2, $3, $4::jsonb, $5::jsonb), ($6, $7, $8, $9::jsonb, $10::jsonb)')).toBe(true);
    expect(values.filter((_, i) => i % 5 === 1)).toEqual(['id-1', 'id-2']);
  });

  it('refuses no events', () => {
    expect(() => outboxInsert([])).toThrow();
  });
});

describe('appendOutbox', () => {
  it('runs the statement through the executor (a Prisma client or transaction)', async () => {
    const calls: unknown[][] = [];
    const executor = {
      $executeRawUnsafe: async (query: string, ...values: unknown[]) => (calls.push([query, ...values]), 2),
    };
    expect(await appendOutbox(executor, [event(1), event(2)])).toBe(2);
    const { text, values } = outboxInsert([event(1), event(2)]);
    expect(calls).toEqual([[text, ...values]]);
  });

  it('writes nothing for no events', async () => {
    const executor = { $executeRawUnsafe: async () => expect.unreachable() as never };
    expect(await appendOutbox(executor, [])).toBe(0);
  });
});
