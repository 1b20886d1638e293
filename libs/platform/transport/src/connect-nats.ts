import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { consoleLogger, type Logger } from './logger.js';

export interface ConnectNatsOptions {
  logger?: Logger;
  /**
   * Keep trying when the server is not up yet (a service starting before NATS); true by
   * default. Tests pass false to fail fast on a wrong URL.
   */
  waitOnFirstConnect?: boolean;
  /**
   * How long the first connection is tried before connectNats gives up and rejects (0: for
   * ever). Each failed attempt logs "waiting for NATS at <url>". Default 30 s.
   */
  firstConnectTimeoutMs?: number;
  /** Anything else nats.js accepts; overrides the defaults below. */
  nats?: Partial<NodeConnectionOptions>;
}

export const DEFAULT_FIRST_CONNECT_TIMEOUT_MS = 30_000;

/** What a process knows about one of its NATS connections, for readiness and fast failures. */
export interface NatsLink {
  /** The connection's name (`kw-gateway`, `kw-fragments-events`). */
  readonly name: string;
  /** False from a disconnect until the reconnect. */
  readonly connected: boolean;
  /** Called at each disconnect; returns the unregistration. */
  onDisconnect(listener: () => void): () => void;
}

class LinkState implements NatsLink {
  connected = true;
  private readonly listeners = new Set<() => void>();
  constructor(readonly name: string) {}
  onDisconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  disconnected(): void {
    this.connected = false;
    for (const listener of [...this.listeners]) listener();
  }
}

/** Every open connection connectNats made in this process (one process is one component's). */
const links = new Map<NatsConnection, LinkState>();

/** The state of a connection connectNats made, while it is open. */
export function natsLinkOf(nc: NatsConnection): NatsLink | undefined {
  return links.get(nc);
}

/** The open NATS connections of this process, for its readiness probe. */
export function natsLinks(): NatsLink[] {
  return [...links.values()];
}

/** A server URL for logs: without user, password or token. */
export function redactNatsUrl(url: string): string {
  return url
    .split(',')
    .map((s) => s.trim().replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1'))
    .filter(Boolean)
    .join(',');
}

/**
 * Connects to NATS the way every component should: reconnecting forever once connected (a
 * restarted server or network blip heals by itself; meanwhile the connection counts as down:
 * readiness says so and requests fail at once with 503, see NatsTransport), detecting a dead
 * server within about 30 s, reporting connection changes in the logs, and without
 * per-request async stack traces. The first connection is tried for a bounded time
 * (`firstConnectTimeoutMs`), each attempt logged, then connectNats rejects: a process that
 * cannot reach NATS exits and its supervisor restarts it, instead of hanging unseen.
 * `url` may list several servers separated by commas.
 */
export async function connectNats(
  url: string,
  name: string,
  options: ConnectNatsOptions = {},
): Promise<NatsConnection> {
  const logger = options.logger ?? consoleLogger;
  const settings: NodeConnectionOptions = {
    servers: url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    // A silent server (a partition: nothing closes the socket) is noticed after about
    // pingInterval * (maxPingOut + 1): 30 s, instead of nats.js's default 4 minutes.
    pingInterval: 10_000,
    maxPingOut: 2,
    // Otherwise every request allocates two Errors (RequestError, TimeoutError) up front for
    // their stack traces: ~10% of a gateway's CPU under load. Our timeouts become AppErrors
    // naming the service, so the extra trace told nothing.
    noAsyncTraces: true,
    ...options.nats,
  };
  const nc =
    (options.waitOnFirstConnect ?? true)
      ? await connectWithin(settings, url, name, options.firstConnectTimeoutMs, logger)
      : await connect({ ...settings, waitOnFirstConnect: false });
  const link = new LinkState(name);
  links.set(nc, link);
  void followStatus(nc, link, logger);
  void nc.closed().then(() => links.delete(nc));
  return nc;
}

/** Tries the first connection until it succeeds or `timeoutMs` passes, logging each failure. */
async function connectWithin(
  settings: NodeConnectionOptions,
  url: string,
  name: string,
  timeoutMs: number | undefined,
  logger: Logger,
): Promise<NatsConnection> {
  const limit = timeoutMs ?? DEFAULT_FIRST_CONNECT_TIMEOUT_MS;
  const deadline = limit > 0 ? Date.now() + limit : Infinity;
  const shown = redactNatsUrl(url);
  const pause = settings.reconnectTimeWait ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    try {
      return await connect({
        ...settings,
        waitOnFirstConnect: false,
        // One attempt (a host that drops packets would otherwise hold it 20 s).
        timeout: Math.max(500, Math.min(settings.timeout ?? 5_000, left)),
      });
    } catch (err) {
      const reason = (err as Error).message ?? String(err);
      if (Date.now() + pause >= deadline) {
        throw new Error(`NATS at ${shown} could not be reached in ${Math.round(limit / 1000)} s (${reason})`, {
          cause: err,
        });
      }
      logger.warn({ nats: name, url: shown, attempt, reason }, `waiting for NATS at ${shown}`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

async function followStatus(nc: NatsConnection, link: LinkState, logger: Logger): Promise<void> {
  const name = link.name;
  try {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        link.disconnected();
        logger.warn({ nats: name, server: s.server }, 'NATS disconnected; reconnecting');
      } else if (s.type === 'staleConnection') {
        link.disconnected();
        logger.warn({ nats: name }, 'NATS server stopped answering pings; reconnecting');
      } else if (s.type === 'reconnect') {
        link.connected = true;
        logger.info({ nats: name, server: s.server }, 'NATS reconnected');
      } else if (s.type === 'error') logger.error({ nats: name, err: s.error }, 'NATS error');
      else if (s.type === 'slowConsumer')
        logger.warn({ nats: name, subject: s.sub.getSubject(), pending: s.pending }, 'NATS slow consumer');
    }
  } catch {
    // the status iterator ends with the connection
  }
}
