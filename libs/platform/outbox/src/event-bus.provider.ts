import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { createEventBus } from './create-event-bus.js';
import type { EventBus, EventLogger } from './event-bus.js';

/** A component's event bus: JetStream (distributed, its own connection) or the shared in-process bus. */
export const EVENT_BUS = Symbol('EVENT_BUS');

export function eventBusProvider(component: string) {
  return {
    provide: EVENT_BUS,
    useFactory: (config: AppConfig, logger: EventLogger): Promise<EventBus> =>
      createEventBus(config, component, logger),
    inject: [APP_CONFIG, LOGGER],
  };
}
