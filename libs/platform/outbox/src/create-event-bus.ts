import type { AppConfig } from '@kw/platform-config';
import { connectNats } from '@kw/platform-transport';
import type { EventBus, EventLogger } from './event-bus.js';
import { sharedInProcessEventBus } from './in-process-event-bus.js';
import { JetStreamEventBus } from './jetstream-event-bus.js';

/** JetStream in the distributed mode (its own NATS connection), the shared in-process bus otherwise. */
export async function createEventBus(config: AppConfig, name: string, logger: EventLogger): Promise<EventBus> {
  if (config.RUN_MODE === 'distributed' && config.NATS_URL) {
    const nc = await connectNats(config.NATS_URL, `kw-${name}-events`, {
      logger: logger as never,
      firstConnectTimeoutMs: config.NATS_CONNECT_TIMEOUT_MS,
    });
    return new JetStreamEventBus(nc, logger, { subjectPrefix: config.NATS_SUBJECT_PREFIX, ownsConnection: true });
  }
  return sharedInProcessEventBus(logger);
}
