import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServiceClient } from '@kw/platform-transport';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../../test/support/postgres.js';
import { describeWith } from '../../../../../test/support/services.js';
import type { WebhooksDb } from '../../persistence/webhooks-database.js';
import { WebhooksRepository } from '../../persistence/webhooks.repository.js';
import type { DeliverySettings } from './delivery-settings.js';
import { EndpointHealth } from './endpoint-health.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;
const HOUR = 3_600_000;

/** An endpoint's health over time, against real Postgres; the owners' notification is recorded. */
describeWith(['postgres'], 'webhook endpoint health', () => {
  let database: MigratedTestDatabase<'data'>;
  let pool: pg.Pool;
  let db: WebhooksDb;
  const notified: Array<{ workspaceId: string; kind: string; payload: any }> = [];
  const client = {
    call: async (_method: unknown, input: { workspaceId: string; kind: string; payloadJson: string }) => {
      notified.push({ workspaceId: input.workspaceId, kind: input.kind, payload: JSON.parse(input.payloadJson) });
      return { notified: 1 };
    },
  } as unknown as ServiceClient;
  const settings = { disableAfterMs: 120 * HOUR } as DeliverySettings;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_webhook_health', 'data', 2);
    ({ pool, prisma: db } = database);
  });

  afterAll(() => database?.close());

  const webhook = (fields: Record<string, unknown> = {}) =>
    db.webhook.create({
      data: {
        workspaceId: randomUUID(),
        name: 'h',
        url: 'https://93.184.216.34/in',
        events: ['fragment.created'],
        createdBy: randomUUID(),
        ...fields,
      },
    });

  it('starts the failure clock at the first failure and clears it on a success', async () => {
    const health = new EndpointHealth(new WebhooksRepository(db, { pool }), settings, silent, client);
    const hook = await webhook();
    await health.record(hook, { ok: false, status: 500, durationMs: 1, failure: 'status' });
    const failing = await db.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(failing.failingSince).not.toBeNull();
    await health.record(failing, { ok: false, status: 500, durationMs: 1, failure: 'status' });
    expect((await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })).failingSince).toEqual(failing.failingSince);
    await health.record(failing, { ok: true, status: 200, durationMs: 1 });
    const healthy = await db.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(healthy).toMatchObject({ failingSince: null, enabled: true });
    expect(healthy.lastSuccessAt).not.toBeNull();
  });

  it('disables an endpoint failing for longer than the limit, cancels its pending deliveries and notifies the owners once', async () => {
    const health = new EndpointHealth(new WebhooksRepository(db, { pool }), settings, silent, client);
    const hook = await webhook({ failingSince: new Date(Date.now() - 121 * HOUR) });
    const pending = await db.webhookDelivery.create({
      data: { webhookId: hook.id, workspaceId: hook.workspaceId, eventType: 'fragment.created', body: '{}' },
    });
    await health.record(hook, { ok: false, durationMs: 1, failure: 'connect' });
    await health.record(hook, { ok: false, durationMs: 1, failure: 'connect' });
    expect(await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    expect((await db.webhookDelivery.findUniqueOrThrow({ where: { id: pending.id } })).status).toBe('cancelled');
    const mine = notified.filter((n) => n.payload.webhookId === hook.id);
    expect(mine).toEqual([
      {
        workspaceId: hook.workspaceId,
        kind: 'webhook.disabled',
        payload: expect.objectContaining({ reason: 'failing', webhookName: 'h' }),
      },
    ]);
  });

  it('keeps an endpoint failing for less than the limit enabled', async () => {
    const health = new EndpointHealth(new WebhooksRepository(db, { pool }), settings, silent, client);
    const hook = await webhook({ failingSince: new Date(Date.now() - 119 * HOUR) });
    await health.record(hook, { ok: false, status: 503, durationMs: 1, failure: 'status' });
    expect((await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })).enabled).toBe(true);
  });
});
