import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { PollingLoop } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import type { DeliveryRow, WebhookRow } from '../persistence/rows.js';
import { DeliveryAttempter, type PreparedEndpoint } from '../service/delivery/attempt-delivery.js';

/** Deliveries claimed by one statement at most. */
const BATCH = 16;
/** Deliveries this worker sends at once, over all endpoints. */
const MAX_IN_FLIGHT = 128;
/** Of which to one endpoint (its kept connections are as many): a slow one holds no more. */
const PER_ENDPOINT = 16;
const POLL_MS = 1_000;
/** Twice the longest attempt (15 s timeout): a dead worker's rows come back after it. */
const LEASE_SECONDS = 30;

export interface DeliveryWorkerLimits {
  batch: number;
  maxInFlight: number;
  perEndpoint: number;
}

/**
 * Works through due deliveries: claims them (FOR UPDATE SKIP LOCKED, so replicas share the
 * work), marks them `delivering` under a lease, sends, records. A worker killed mid-send leaves
 * its rows to be claimed again when the lease ends: at least once, same webhook-id.
 *
 * Sends are a pipeline, not batches: a claim never waits for the previous claim's sends, and
 * each endpoint has at most PER_ENDPOINT of the MAX_IN_FLIGHT sends, so a receiver that answers
 * slowly (or not at all, until the 15 s timeout) delays only its own deliveries, never those of
 * other endpoints and tenants.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;
  private readonly limits: DeliveryWorkerLimits = {
    batch: BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    perEndpoint: PER_ENDPOINT,
  };
  /** Sends in flight, per endpoint id. */
  private readonly sending = new Map<string, number>();
  private inFlight = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deliveries: DeliveriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly attempter: DeliveryAttempter,
  ) {
    // Another pass at once after a full claim, while a batch still fits.
    this.loop = new PollingLoop(async () => (await this.deliverDue()) >= this.limits.batch && this.hasRoomForBatch(), {
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
    await Promise.allSettled([...this.pending]);
  }

  /** Look for due deliveries now (new rows were added). */
  poke(): void {
    this.loop.poke();
  }

  /** For tests: smaller numbers than the defaults. */
  setLimits(limits: Partial<DeliveryWorkerLimits>): void {
    Object.assign(this.limits, limits);
  }

  /** Deliveries being sent now (tests, drain). */
  get sendingNow(): number {
    return this.inFlight;
  }

  /**
   * Claims what there is room for and starts sending it; returns how many deliveries it
   * claimed. It does not wait for the sends: each one, when done, frees its place and asks for
   * another pass once a batch fits again.
   */
  async deliverDue(): Promise<number> {
    const room = Math.min(this.limits.batch, this.limits.maxInFlight - this.inFlight);
    if (room <= 0) return 0;
    const busy = new Map([...this.sending].map(([id, n]) => [id, this.limits.perEndpoint - n]));
    const deliveries = await this.deliveries.claimDue(room, LEASE_SECONDS, { busy, other: this.limits.perEndpoint });
    // The claim's deliveries to one endpoint share its check, headers and secrets.
    const endpoints = new Map<string, Promise<PreparedEndpoint>>();
    for (const { webhook, ...delivery } of deliveries) {
      let endpoint = endpoints.get(webhook.id);
      if (!endpoint) endpoints.set(webhook.id, (endpoint = this.attempter.prepare(webhook)));
      this.start(delivery, webhook, endpoint);
    }
    return deliveries.length;
  }

  private start(delivery: DeliveryRow, webhook: WebhookRow, endpoint: Promise<PreparedEndpoint>): void {
    this.inFlight++;
    this.sending.set(webhook.id, (this.sending.get(webhook.id) ?? 0) + 1);
    const send = this.send(delivery, webhook, endpoint).finally(() => {
      this.inFlight--;
      const left = (this.sending.get(webhook.id) ?? 1) - 1;
      if (left > 0) this.sending.set(webhook.id, left);
      else this.sending.delete(webhook.id);
      this.pending.delete(send);
      // Claim again when a whole batch fits, or when this endpoint was full (its backlog waits).
      if (this.hasRoomForBatch() || left === this.limits.perEndpoint - 1) this.loop.poke();
    });
    this.pending.add(send);
  }

  private async send(delivery: DeliveryRow, webhook: WebhookRow, endpoint: Promise<PreparedEndpoint>): Promise<void> {
    try {
      if (!webhook.enabled) await this.deliveries.cancelForDisabledEndpoint(delivery.id);
      else await this.attempter.attempt(delivery, webhook, endpoint);
    } catch (err) {
      // The lease brings the row back; nothing else to do but say why.
      this.logger.error({ err, deliveryId: delivery.id }, 'webhook delivery attempt failed unexpectedly');
    }
  }

  private hasRoomForBatch(): boolean {
    return this.limits.maxInFlight - this.inFlight >= this.limits.batch;
  }
}
