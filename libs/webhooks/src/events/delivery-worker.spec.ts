import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Logger } from '@kw/platform-observability';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import type { DeliveryRow, WebhookRow } from '../persistence/rows.js';
import type { WebhooksDb } from '../persistence/webhooks-database.js';
import type { DeliveryAttempter } from '../service/delivery/attempt-delivery.js';
import { DeliveryWorker } from './delivery-worker.js';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;

/**
 * The delivery worker on real Postgres with a stand-in sender: a receiver that does not answer
 * holds only its own endpoint's places, so other endpoints (other tenants) are served at once.
 */
describeWith(['postgres'], 'webhook delivery worker (real Postgres)', () => {
  let database: MigratedTestDatabase<'data'>;
  let db: WebhooksDb;
  let repository: DeliveriesRepository;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_webhook_worker', 'data');
    db = database.prisma;
    repository = new DeliveriesRepository(db, { pool: database.pool });
  });
  afterAll(() => database?.close());

  async function endpointWith(deliveries: number): Promise<string> {
    const workspaceId = randomUUID();
    const hook = await db.webhook.create({
      data: {
        workspaceId,
        name: 'h',
        url: 'https://93.184.216.34/in',
        events: ['fragment.created'],
        createdBy: randomUUID(),
      },
    });
    await db.webhookDelivery.createMany({
      data: Array.from({ length: deliveries }, () => ({
        webhookId: hook.id,
        workspaceId,
        eventType: 'fragment.created',
        body: '{}',
      })),
    });
    return hook.id;
  }

  /** Sends to `slow` hang until released; all others answer at once. */
  function standInSender(slow: string) {
    const sent: string[] = [];
    let hanging = 0;
    let mostHanging = 0;
    const releases: Array<() => void> = [];
    const attempter = {
      prepare: async () => ({}),
      attempt: async (delivery: DeliveryRow, webhook: WebhookRow) => {
        if (webhook.id === slow) {
          hanging++;
          mostHanging = Math.max(mostHanging, hanging);
          await new Promise<void>((resolve) => releases.push(resolve));
          hanging--;
        }
        sent.push(webhook.id);
        await db.webhookDelivery.update({
          where: { id: delivery.id },
          data: { status: 'succeeded', leaseUntil: null },
        });
      },
    } as unknown as DeliveryAttempter;
    return {
      attempter,
      sent,
      mostHanging: () => mostHanging,
      release: () => releases.splice(0).forEach((r) => r()),
    };
  }

  async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("serves other endpoints while one endpoint's receiver hangs, which holds at most its own places", async () => {
    const slow = await endpointWith(40);
    const sender = standInSender(slow);
    const worker = new DeliveryWorker(repository, silent, sender.attempter);
    worker.setLimits({ batch: 4, maxInFlight: 12, perEndpoint: 3 });
    worker.onApplicationBootstrap();
    try {
      await until(() => sender.mostHanging() === 3, 'the slow endpoint to fill its places');
      // Deliveries to two healthy endpoints of other tenants, due after the slow backlog.
      const healthy = [await endpointWith(5), await endpointWith(5)];
      worker.poke();
      await until(
        () => sender.sent.filter((id) => healthy.includes(id)).length === 10,
        'the healthy endpoints to get every delivery',
      );
      // Meanwhile the hanging receiver has got nothing and never held more than its places.
      expect(sender.sent.filter((id) => id === slow)).toHaveLength(0);
      expect(sender.mostHanging()).toBe(3);
      await until(() => worker.sendingNow === 3, 'the healthy sends to finish');
      // Released, the slow endpoint's backlog drains, still at most three at a time.
      const drained = async () => {
        sender.release();
        return (await db.webhookDelivery.count({ where: { webhookId: slow, status: 'succeeded' } })) === 40;
      };
      await until(drained, 'the slow backlog to drain');
      expect(sender.mostHanging()).toBe(3);
    } finally {
      sender.release();
      await worker.onModuleDestroy();
    }
  });
});
