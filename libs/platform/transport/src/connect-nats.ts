import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { consoleLogger, type Logger } from './logger.js';

export interface ConnectNatsOptions {
  logger?: Logger;
  /**
   * Keep trying when the server is not up yet (a service starting before NATS); true by
   * default. Tests pass false to fail fast on a wrong URL.
   */
  waitOnFirstConnect?: boolean;
  /** Anything else nats.js accepts; overrides the defaults below. */
  nats?: Partial<NodeConnectionOptions>;
}

/**
 * Connects to NATS the way every component should: reconnecting forever (a restarted server
 * or network blip heals by itself, requests meanwhile fail as 503/504), detecting a dead
 * server within a minute, reporting connection changes in the logs, and without per-request
 * async stack traces.
 * `url` may list several servers separated by commas.
 */
export async function connectNats(
  url: string,
  name: string,
  options: ConnectNatsOptions = {},
): Promise<NatsConnection> {
  const logger = options.logger ?? consoleLogger;
  const nc = await connect({
    servers: url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    waitOnFirstConnect: options.waitOnFirstConnect ?? true,
    pingInterval: 20_000,
    maxPingOut: 3,
    // Otherwise every request allocates two Errors (RequestError, TimeoutError) up front for
    // their stack traces: ~10% of a gateway's CPU under load. Our timeouts become AppErrors
    // naming the service, so the extra trace told nothing.
    noAsyncTraces: true,
    ...options.nats,
  });
  void logStatus(nc, name, logger);
  return nc;
}

async function logStatus(nc: NatsConnection, name: string, logger: Logger): Promise<void> {
  try {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') logger.warn({ nats: name, server: s.server }, 'NATS disconnected; reconnecting');
      else if (s.type === 'reconnect') logger.info({ nats: name, server: s.server }, 'NATS reconnected');
      else if (s.type === 'error') logger.error({ nats: name, err: s.error }, 'NATS error');
      else if (s.type === 'slowConsumer')
        logger.warn({ nats: name, subject: s.sub.getSubject(), pending: s.pending }, 'NATS slow consumer');
    }
  } catch {
    // the status iterator ends with the connection
  }
}
