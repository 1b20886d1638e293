import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { EventBus, OutboxRelay } from '@kw/platform-outbox';
import { OutboxRepository } from '../persistence/outbox.repository.js';
import { EVENT_BUS } from './event-bus.provider.js';

/** Runs the outbox relay where the fragments component runs (every replica: rows are claimed with SKIP LOCKED). */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly relay: OutboxRelay;

  constructor(
    outbox: OutboxRepository,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.relay = outbox.relayTo(bus, logger.child({ worker: 'outbox-relay' }), {
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}
