import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { EVENT_BUS, type DomainEvent, type EventBus, type EventSubscription } from '@kw/platform-outbox';
import { LOGGER } from '@kw/platform-runtime';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import { payloadOfEvent } from '../service/delivery/event-payload.js';
import { WEBHOOK_EVENT_TYPES } from '../webhooks-limits.js';
import { DeliveryWorker } from './delivery-worker.js';

/** The durable consumer (JetStream in the distributed mode) every webhooks replica shares. */
export const FAN_OUT_CONSUMER = 'webhooks-fanout';

/**
 * Turns each fragment event into one delivery row per enabled endpoint that selected its kind.
 * Idempotent by (endpoint, event id): a redelivered event adds nothing. The rows are the
 * durable schedule the delivery worker works through, retries included.
 */
@Injectable()
export class WebhookFanOut implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: EventSubscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly deliveries: DeliveriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly worker: DeliveryWorker,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe(
      {
        consumer: FAN_OUT_CONSUMER,
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        // Events in flight together share one insert (DeliveriesRepository.addForEvent).
        concurrency: 16,
        ackWaitMs: 30_000,
        retryDelayMs: 1_000,
      },
      async ({ event }) => {
        await this.fanOut(event);
      },
    );
    this.logger.info({ bus: this.bus.kind, consumer: FAN_OUT_CONSUMER }, 'webhook fan-out started');
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
    // Its own NATS connection; the in-process bus is shared and closed by its owner (the relay).
    if (this.bus.kind === 'jetstream') await this.bus.close();
  }

  /** Returns how many deliveries were added. */
  async fanOut(event: DomainEvent): Promise<number> {
    const workspaceId = typeof event.payload.workspaceId === 'string' ? event.payload.workspaceId : '';
    if (!workspaceId) return 0;
    // The endpoints that selected the event are found by the insert itself.
    const body = JSON.stringify(payloadOfEvent(event));
    const count = await this.deliveries.addForEvent({
      workspaceId,
      eventId: event.id,
      eventType: event.eventType,
      body,
    });
    if (count > 0) this.worker.poke();
    return count;
  }
}
