import { describe, expect, it } from 'vitest';
import type { DomainEvent } from './event-bus.js';
import { InProcessEventBus } from './in-process-event-bus.js';

const event = (id: string, eventType = 'thing.created'): DomainEvent => ({
  id,
  aggregateType: 'thing',
  aggregateId: id,
  eventType,
  payload: {},
  headers: {},
  occurredAt: new Date().toISOString(),
});

describe('in-process event bus', () => {
  it('delivers events published before and after subscribing, once per consumer name, filtered by type', async () => {
    const bus = new InProcessEventBus();
    await bus.publish(event('a'));
    const got: string[] = [];
    const other: string[] = [];
    await bus.subscribe({ consumer: 'c1', eventTypes: ['thing.created'] }, async ({ event: e }) => void got.push(e.id));
    await bus.subscribe(
      { consumer: 'c2', eventTypes: ['thing.deleted'] },
      async ({ event: e }) => void other.push(e.id),
    );
    await bus.publish(event('b'));
    await bus.publish(event('b')); // deduplicated by id
    await bus.publish(event('c', 'thing.deleted'));
    await expect.poll(() => got).toEqual(['a', 'b']);
    expect(other).toEqual(['c']);
    await bus.close();
  });

  it('gives a consumer that subscribes later the recent events too, whoever subscribed first', async () => {
    const bus = new InProcessEventBus();
    const early: string[] = [];
    const late: string[] = [];
    await bus.publish(event('before-anyone'));
    await bus.subscribe(
      { consumer: 'early', eventTypes: ['thing.created'] },
      async ({ event: e }) => void early.push(e.id),
    );
    await bus.publish(event('after-early'));
    await expect.poll(() => early).toEqual(['before-anyone', 'after-early']);
    await bus.subscribe(
      { consumer: 'late', eventTypes: ['thing.created'] },
      async ({ event: e }) => void late.push(e.id),
    );
    await expect.poll(() => late).toEqual(['before-anyone', 'after-early']);
    // A second subscriber of an existing consumer name replays nothing.
    const again: string[] = [];
    await bus.subscribe(
      { consumer: 'early', eventTypes: ['thing.created'] },
      async ({ event: e }) => void again.push(e.id),
    );
    await bus.publish(event('third'));
    await expect.poll(() => [...early, ...again].filter((id) => id === 'third')).toEqual(['third']);
    expect(again.filter((id) => id !== 'third')).toEqual([]);
    await bus.close();
  });

  it('redelivers after a handler error and after the ack wait, counting deliveries', async () => {
    const bus = new InProcessEventBus();
    const deliveries: number[] = [];
    await bus.subscribe(
      { consumer: 'c', eventTypes: ['thing.created'], retryDelayMs: 10, ackWaitMs: 50 },
      async ({ deliveryCount }) => {
        deliveries.push(deliveryCount);
        if (deliveryCount === 1) throw new Error('first attempt fails');
        if (deliveryCount === 2) await new Promise((r) => setTimeout(r, 200)); // never acked in time
      },
    );
    await bus.publish(event('x'));
    await expect.poll(() => deliveries.includes(3)).toBe(true);
    expect(deliveries.slice(0, 3)).toEqual([1, 2, 3]);
    await bus.close();
  });

  it('shares one consumer name between subscribers: each event goes to one of them', async () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    for (const name of ['r1', 'r2'])
      await bus.subscribe(
        { consumer: 'shared', eventTypes: ['thing.created'] },
        async ({ event: e }) => void seen.push(`${name}:${e.id}`),
      );
    for (const id of ['1', '2', '3', '4']) await bus.publish(event(id));
    await expect.poll(() => seen.length).toBe(4);
    expect(seen.map((s) => s.split(':')[1]).sort()).toEqual(['1', '2', '3', '4']);
    expect(new Set(seen.map((s) => s.split(':')[0]))).toEqual(new Set(['r1', 'r2']));
    await bus.close();
  });
});
