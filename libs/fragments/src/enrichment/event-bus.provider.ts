import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { createEventBus, type EventBus } from '@kw/platform-outbox';

/** The event bus of the fragments process: JetStream (distributed) or the in-process bus. */
export const EVENT_BUS = Symbol('EVENT_BUS');

export const eventBusProvider = {
  provide: EVENT_BUS,
  useFactory: (config: AppConfig, logger: Logger): Promise<EventBus> => createEventBus(config, 'fragments', logger),
  inject: [APP_CONFIG, LOGGER],
};
