import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { connectNats, InProcessBus, InProcessTransport, NatsTransport, type Transport } from '@kw/platform-transport';

/**
 * NATS in the distributed mode; in the embedded mode an in-process bus with the same
 * contract (the conformance suite proves the two behave alike).
 */
export async function createTransport(config: AppConfig, component: string, logger: Logger): Promise<Transport> {
  if (config.RUN_MODE === 'distributed' && config.NATS_URL) {
    const nc = await connectNats(config.NATS_URL, `kw-${component}`, {
      logger,
      firstConnectTimeoutMs: config.NATS_CONNECT_TIMEOUT_MS,
    });
    return new NatsTransport(nc, {
      component,
      logger,
      subjectPrefix: config.NATS_SUBJECT_PREFIX ? `${config.NATS_SUBJECT_PREFIX}.` : undefined,
    });
  }
  return new InProcessTransport({ component, bus: new InProcessBus(), logger });
}
