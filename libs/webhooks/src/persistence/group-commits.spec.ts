import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { DeliveriesRepository, type FannedOutEvent } from './deliveries.repository.js';
import type { WebhooksDb } from './webhooks-database.js';
import { WebhooksRepository } from './webhooks.repository.js';

/**
 * The webhook writes that many callers make at once and that go together as one statement
 * (group commit): calls made without awaiting each other land in one batch after the first.
 */
describeWith(['postgres'], 'webhook writes made together (real Postgres)', () => {
  let database: MigratedTestDatabase<'data'>;
  let pool: pg.Pool;
  let db: WebhooksDb;
  let deliveries: DeliveriesRepository;
  let webhooks: WebhooksRepository;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_webhook_group_commits', 'data');
    ({ pool, prisma: db } = database);
    deliveries = new DeliveriesRepository(db, { pool });
    webhooks = new WebhooksRepository(db, { pool });
  });
  afterAll(() => database?.close());

  const webhook = (workspaceId: string, fields: Record<string, unknown> = {}) =>
    db.webhook.create({
      data: {
        workspaceId,
        name: 'h',
        url: 'https://93.184.216.34/in',
        events: ['fragment.created', 'fragment.updated'],
        createdBy: randomUUID(),
        ...fields,
      },
    });
  const event = (workspaceId: string, eventType = 'fragment.created'): FannedOutEvent => ({
    workspaceId,
    eventId: randomUUID(),
    eventType,
    body: JSON.stringify({ type: eventType }),
  });

  it('fans events out to the enabled endpoints that selected them, answering each event its own count', async () => {
    const ws = randomUUID();
    const other = randomUUID();
    const [both, createdOnly] = [await webhook(ws), await webhook(ws, { events: ['fragment.created'] })];
    await webhook(ws, { enabled: false });
    await webhook(other);
    const events = [event(ws), event(ws, 'fragment.updated'), event(ws, 'fragment.deleted'), event(other), event(ws)];
    const counts = await Promise.all(events.map((e) => deliveries.addForEvent(e)));
    expect(counts).toEqual([2, 1, 0, 1, 2]);
    const rows = await db.webhookDelivery.findMany({ where: { workspaceId: ws } });
    expect(rows).toHaveLength(5);
    expect(rows.filter((r) => r.eventId === events[1]!.eventId).map((r) => r.webhookId)).toEqual([both.id]);
    expect(new Set(rows.map((r) => r.webhookId))).toEqual(new Set([both.id, createdOnly.id]));
    // A redelivered event adds nothing, alone or with new ones.
    const again = await Promise.all([events[0]!, event(ws), events[4]!].map((e) => deliveries.addForEvent(e)));
    expect(again).toEqual([0, 2, 0]);
  });

  it('a malformed event fails alone; the others of its batch are fanned out', async () => {
    const ws = randomUUID();
    await webhook(ws);
    const results = await Promise.allSettled([
      deliveries.addForEvent(event(ws)),
      deliveries.addForEvent(event(ws)),
      deliveries.addForEvent({ ...event(ws), workspaceId: 'not-a-uuid' }),
      deliveries.addForEvent(event(ws)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([1, 1, 'rejected', 1]);
  });

  it('claims due deliveries with their endpoints, and records attempts made together; a delivery deleted meanwhile is skipped', async () => {
    const ws = randomUUID();
    const hook = await webhook(ws, { headerNames: ['x-key'], failingSince: new Date('2026-01-02T03:04:05.678Z') });
    await Promise.all([event(ws), event(ws), event(ws)].map((e) => deliveries.addForEvent(e)));
    const claimed = (await deliveries.claimDue(50, 30)).filter((d) => d.workspaceId === ws);
    expect(claimed).toHaveLength(3);
    const fromPrisma = await db.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    // The endpoint as Prisma reads it: same fields, timestamps as Dates.
    expect(claimed[0]!.webhook).toEqual(fromPrisma);
    expect(claimed[0]).toMatchObject({ status: 'delivering', attempts: 0, test: false });
    expect(claimed[0]!.nextAttemptAt).toBeInstanceOf(Date);

    await db.webhookDelivery.delete({ where: { id: claimed[2]!.id } });
    const at = new Date('2026-11-27T10:00:00.000Z');
    const record = (id: string, ok: boolean) =>
      deliveries.recordAttempt(
        id,
        {
          number: 1,
          startedAt: at,
          durationMs: 12,
          status: ok ? 204 : 500,
          failure: ok ? null : 'status',
          message: null,
        },
        {
          status: ok ? 'succeeded' : 'pending',
          attempts: 1,
          lastStatus: ok ? 204 : 500,
          lastFailure: ok ? null : 'HTTP 500',
          nextAttemptAt: ok ? at : new Date(at.getTime() + 5_000),
          completedAt: ok ? at : null,
        },
      );
    await Promise.all([record(claimed[0]!.id, true), record(claimed[1]!.id, false), record(claimed[2]!.id, true)]);
    const after = await db.webhookDelivery.findMany({
      where: { workspaceId: ws },
      include: { attemptLog: true },
      orderBy: { status: 'asc' },
    });
    expect(after.map((d) => [d.status, d.leaseUntil, d.attemptLog.map((a) => a.status)])).toEqual([
      ['pending', null, [500]],
      ['succeeded', null, [204]],
    ]);
  });

  it("keeps an endpoint's health in the order the outcomes came, when they are written together", async () => {
    const hook = await webhook(randomUUID());
    const t = (second: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, second));
    const state = async () => {
      const row = await db.webhook.findUniqueOrThrow({ where: { id: hook.id } });
      return { lastSuccessAt: row.lastSuccessAt, failingSince: row.failingSince };
    };
    // A failure, then (together) a success and two failures: the clock restarts at the first failure after the success.
    await Promise.all([
      webhooks.startFailureClock(hook.id, t(1)),
      webhooks.recordSuccess(hook.id, t(2)),
      webhooks.startFailureClock(hook.id, t(3)),
      webhooks.startFailureClock(hook.id, t(4)),
    ]);
    expect(await state()).toEqual({ lastSuccessAt: t(2), failingSince: t(3) });
    // Failures only: a running clock keeps its start.
    await Promise.all([webhooks.startFailureClock(hook.id, t(5)), webhooks.startFailureClock(hook.id, t(6))]);
    expect(await state()).toEqual({ lastSuccessAt: t(2), failingSince: t(3) });
    // The last outcome a success: the clock stops.
    await Promise.all([
      webhooks.startFailureClock(hook.id, t(7)),
      webhooks.startFailureClock(hook.id, t(8)),
      webhooks.recordSuccess(hook.id, t(9)),
    ]);
    expect(await state()).toEqual({ lastSuccessAt: t(9), failingSince: null });
  });

  it('a redelivery cancelled because its endpoint was disabled meanwhile keeps the recorded outcome', async () => {
    const ws = randomUUID();
    const hook = await webhook(ws);
    const finished = (status: string) =>
      db.webhookDelivery.create({
        data: {
          webhookId: hook.id,
          workspaceId: ws,
          eventType: 'fragment.created',
          body: '{}',
          status,
          attempts: 1,
          lastStatus: status === 'succeeded' ? 204 : 500,
          lastFailure: status === 'succeeded' ? null : 'HTTP 500',
          completedAt: new Date('2026-01-01T00:00:00Z'),
        },
      });
    const [succeeded, failed, retrying] = [
      await finished('succeeded'),
      await finished('failed'),
      await finished('pending'),
    ];
    for (const d of [succeeded, failed, retrying]) expect(await deliveries.requeue(d.id)).toBe(true);
    // Disabled by the platform (410, failing) while the redeliveries wait: the pending retry is cancelled.
    expect(await webhooks.disable(hook.id, 'gone', new Date())).toBe(true);
    const after = async (id: string) => db.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(await after(succeeded.id)).toMatchObject({
      status: 'succeeded',
      lastFailure: null,
      completedAt: succeeded.completedAt,
    });
    expect(await after(failed.id)).toMatchObject({ status: 'failed', lastFailure: 'HTTP 500' });
    expect(await after(retrying.id)).toMatchObject({ status: 'cancelled', lastFailure: 'endpoint disabled (gone)' });
    // Disabled endpoint: no redelivery at all.
    expect(await deliveries.requeue(succeeded.id)).toBe(false);
    // The worker's path: a redelivery claimed after its endpoint was disabled by a PATCH.
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: true } });
    expect(await deliveries.requeue(succeeded.id)).toBe(true);
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: false } });
    await deliveries.cancelForDisabledEndpoint(succeeded.id);
    expect(await after(succeeded.id)).toMatchObject({ status: 'succeeded', completedAt: succeeded.completedAt });
  });
});
