import type { AppConfig } from '@kw/platform-config';
import type { PlatformMetrics } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER, METRICS } from '@kw/platform-runtime';
import { countDeliveries } from './counted-event-bus.js';
import { createEventBus } from './create-event-bus.js';
import type { EventBus, EventLogger } from './event-bus.js';

/** A component's event bus: JetStream (distributed, its own connection) or the shared in-process bus. */
export const EVENT_BUS = Symbol('EVENT_BUS');

export function eventBusProvider(component: string) {
  return {
    provide: EVENT_BUS,
    useFactory: async (config: AppConfig, logger: EventLogger, metrics: PlatformMetrics): Promise<EventBus> =>
      countDeliveries(await createEventBus(config, component, logger), (subject, outcome) =>
        metrics.messagesHandled.inc({ subject, outcome }),
      ),
    inject: [APP_CONFIG, LOGGER, METRICS],
  };
}
