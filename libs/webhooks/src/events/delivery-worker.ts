import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import type { WebhookRow } from '../persistence/rows.js';
import { DeliveryAttempter, type PreparedEndpoint } from '../service/delivery/attempt-delivery.js';

const BATCH = 16;
const POLL_MS = 1_000;
/** Twice the longest attempt (15 s timeout): a dead worker's rows come back after it. */
const LEASE_SECONDS = 30;

/**
 * Works through due deliveries: claims a batch (FOR UPDATE SKIP LOCKED, so replicas share
 * the work), marks it `delivering` under a lease, sends, records. A worker killed mid-send
 * leaves its rows to be claimed again when the lease ends: at least once, same webhook-id.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly attempter: DeliveryAttempter,
  ) {
    this.loop = new PollingLoop(async () => (await this.deliverDue()) === BATCH, {
      intervalMs: POLL_MS,
      maxErrorPauseMs: 30_000,
      onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'webhook delivery worker failed; retrying'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Look for due deliveries now (new rows were added). */
  poke(): void {
    this.loop.poke();
  }

  /** Claims and sends one batch; returns how many deliveries it attempted. */
  async deliverDue(): Promise<number> {
    const deliveries = await this.deliveries.claimDue(BATCH, LEASE_SECONDS);
    if (deliveries.length === 0) return 0;
    // The batch's deliveries to one endpoint share its check, headers and secrets.
    const endpoints = new Map<string, Promise<PreparedEndpoint>>();
    const endpointOf = (webhook: WebhookRow) => {
      let endpoint = endpoints.get(webhook.id);
      if (!endpoint) endpoints.set(webhook.id, (endpoint = this.attempter.prepare(webhook)));
      return endpoint;
    };
    await Promise.all(
      deliveries.map(async ({ webhook, ...delivery }) => {
        if (!webhook.enabled) {
          await this.deliveries.cancelForDisabledEndpoint(delivery.id);
          return;
        }
        await this.attempter.attempt(delivery, webhook, endpointOf(webhook)).catch((err: unknown) => {
          // The lease brings the row back; nothing else to do but say why.
          this.logger.error({ err, deliveryId: delivery.id }, 'webhook delivery attempt failed unexpectedly');
        });
      }),
    );
    return deliveries.length;
  }
}
