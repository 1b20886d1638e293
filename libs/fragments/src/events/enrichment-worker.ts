import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import type { EventBus, EventSubscription } from '@kw/platform-outbox';
import { ENRICHMENT_CONSUMER, ENRICHMENT_EVENTS } from '../service/enrichment/enrichment-state.js';
import { EVENT_BUS } from './event-bus.provider.js';
import { FragmentEnricher } from '../service/enrichment/fragment-enricher.js';

/** Consumes fragment events from the bus (durable consumer `fragments-enrichment`) and enriches. */
@Injectable()
export class EnrichmentWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: EventSubscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly enricher: FragmentEnricher,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe(
      {
        consumer: ENRICHMENT_CONSUMER,
        eventTypes: ENRICHMENT_EVENTS,
        concurrency: 4,
        ackWaitMs: 30_000,
        retryDelayMs: 1_000,
      },
      async ({ event, deliveryCount }) => {
        if (deliveryCount > 1) this.logger.info({ eventId: event.id, deliveryCount }, 'fragment event redelivered');
        await this.enricher.handle(event, deliveryCount);
      },
    );
    this.logger.info({ bus: this.bus.kind, consumer: ENRICHMENT_CONSUMER }, 'enrichment worker started');
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
  }
}
