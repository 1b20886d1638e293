import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { connectNats, InProcessBus, InProcessTransport, NatsTransport, type Transport } from '@kw/platform-transport';

/**
 * NATS in the distributed mode; in the embedded mode an in-process bus with the same
 * contract (the conformance suite proves the two behave alike).
 */
export async function createTransport(
  config: AppConfig,
  component: string,
  logger: Logger,
  onExpired?: (subject: string) => void,
): Promise<Transport> {
  const deadline = { deadlineGraceMs: config.REQUEST_DEADLINE_GRACE_MS, onExpired };
  if (config.RUN_MODE === 'distributed' && config.NATS_URL) {
    const nc = await connectNats(config.NATS_URL, `kw-${component}`, {
      logger,
      firstConnectTimeoutMs: config.NATS_CONNECT_TIMEOUT_MS,
    });
    return new NatsTransport(nc, {
      component,
      logger,
      subjectPrefix: config.NATS_SUBJECT_PREFIX ? `${config.NATS_SUBJECT_PREFIX}.` : undefined,
      ...deadline,
    });
  }
  return new InProcessTransport({ component, bus: new InProcessBus(), logger, ...deadline });
}
