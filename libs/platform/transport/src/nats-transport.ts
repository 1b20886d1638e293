import {
  ClosedConnectionError,
  DrainingConnectionError,
  RequestError,
  TimeoutError,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import { AppError, serviceTimeout, serviceUnavailable, transportUnavailable } from '@kw/platform-errors';
import { requestOverWire, type Wire } from './chunks.js';
import { natsLinkOf, type NatsLink } from './connect-nats.js';
import { InFlight } from './in-flight.js';
import { consoleLogger, type Logger } from './logger.js';
import { DEFAULT_MAX_PAYLOAD, messageSize, payloadTooLarge } from './message-size.js';
import { answerRequest, runEventHandler } from './run-handler.js';
import type {
  EventHandler,
  HandleOptions,
  Headers,
  Message,
  PublishOptions,
  Reply,
  RequestHandler,
  RequestOptions,
  SubscribeOptions,
  Subscription,
  Transport,
  TransportOptions,
} from './transport.js';
import { deadlineScope } from './deadline.js';

function toNats(headers: Headers | undefined): MsgHdrs | undefined {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [k, v] of entries) h.set(k, v);
  return h;
}

function fromNats(h: MsgHdrs | undefined): Headers {
  const headers: Headers = {};
  if (h) for (const [k, values] of h) if (values.length > 0) headers[k] = values[values.length - 1];
  return headers;
}

const toMessage = (msg: Msg): Message => ({ data: msg.data, headers: fromNats(msg.headers) });

/**
 * The transport of the distributed mode, over one NATS connection (see connectNats).
 * Handlers join a queue group named after the component, so instances share the load.
 * Requests and replies bigger than the server's max_payload travel in chunks (chunks.ts).
 * The transport owns the connection: drain() closes it.
 */
export class NatsTransport implements Transport {
  readonly component: string;
  private readonly prefix: string;
  private readonly logger: Logger;
  /** When a request arrived too late to be worth handling (deadline.ts). */
  private readonly deadline: ReturnType<typeof deadlineScope>;
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Set<NatsSubscription>();
  /** One message each way, what chunks.ts builds requests and replies of any size on. */
  private readonly wire: Wire;
  /** The connection's state when connectNats made it (else it counts as up while open). */
  private readonly link: NatsLink | undefined;

  constructor(
    private readonly nc: NatsConnection,
    options: TransportOptions,
  ) {
    this.component = options.component;
    this.prefix = options.subjectPrefix ?? '';
    this.logger = options.logger ?? consoleLogger;
    this.deadline = deadlineScope(options);
    this.link = natsLinkOf(nc);
    this.wire = {
      get maxPayload() {
        return nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
      },
      send: (subject, message, timeoutMs, service) => this.sendOne(subject, message, timeoutMs, service),
      listen: (subject, respond) => this.listen(subject, respond),
    };
  }

  /** The server's limit (headers included); NATS's default until the first INFO arrives. */
  get maxPayload(): number {
    return this.wire.maxPayload;
  }

  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<Message> {
    return requestOverWire(this.wire, subject, data, options, this.logger);
  }

  handle(subject: string, handler: RequestHandler, options: HandleOptions = {}): Subscription {
    return this.register(subject, options.queue ?? this.component, (msg) => {
      if (!msg.reply) {
        this.logger.warn({ subject }, 'event published on a request subject; ignored');
        return;
      }
      const scope = {
        subject,
        logger: this.logger,
        maxPayload: this.maxPayload,
        inFlight: this.inFlight,
        ...this.deadline,
      };
      const work = answerRequest(this.wire, handler, toMessage(msg), scope).then((answer) => {
        msg.respond(answer.data, { headers: toNats(answer.headers) });
      });
      // Only sending can fail here (connection closed): the caller will see a timeout.
      this.inFlight.track(work.catch((err: unknown) => this.logger.error({ subject, err }, 'reply not sent')));
    });
  }

  publish(subject: string, data: Uint8Array, options: PublishOptions = {}): void {
    if (messageSize(data, options.headers) > this.maxPayload) throw payloadTooLarge(subject, this.maxPayload);
    try {
      this.nc.publish(this.prefix + subject, data, { headers: toNats(options.headers) });
    } catch (err) {
      throw this.failure(err, subject, subject);
    }
  }

  subscribe(subject: string, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    return this.register(subject, options.queue, (msg) => {
      this.inFlight.track(runEventHandler(handler, toMessage(msg), { subject, logger: this.logger }));
    });
  }

  async flush(): Promise<void> {
    await this.nc.flush();
  }

  /**
   * Unsubscribes (messages already received are still handled), waits for every handler to
   * finish and reply, and only then drains and closes the connection: replies, and requests
   * the handlers make, still go out meanwhile.
   */
  async drain(): Promise<void> {
    const subscriptions = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((s) => s.drain().catch(() => undefined)));
    await this.inFlight.idle();
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }

  onLinkLost(listener: () => void): () => void {
    return this.link?.onDisconnect(listener) ?? (() => undefined);
  }

  /** False while the connection is down (between a disconnect and the reconnect). */
  get connected(): boolean {
    return !this.nc.isClosed() && (this.link?.connected ?? true);
  }

  /**
   * One request. While the connection is down it fails at once with 503 naming the message
   * bus (nats.js would buffer it and let it time out); one waiting for its reply when the
   * connection drops fails then too: its reply, sent meanwhile, cannot arrive.
   */
  private async sendOne(subject: string, message: Message, timeoutMs: number, service: string): Promise<Message> {
    if (this.link && !this.link.connected) throw transportUnavailable(this.component);
    let unlisten: (() => void) | undefined;
    try {
      const request = this.nc.request(this.prefix + subject, message.data, {
        timeout: timeoutMs,
        headers: toNats(message.headers),
      });
      const lost = this.link
        ? new Promise<never>((_, reject) => {
            unlisten = this.link!.onDisconnect(() => reject(transportUnavailable(this.component)));
          })
        : undefined;
      if (lost) request.catch(() => undefined);
      return toMessage(await (lost ? Promise.race([request, lost]) : request));
    } catch (err) {
      if (AppError.isAppError(err)) throw err;
      throw this.failure(err, subject, service);
    } finally {
      unlisten?.();
    }
  }

  /**
   * A chunk server's subscription: kept out of `subscriptions` so that drain() lets callers
   * fetch what in-flight handlers answered (answerRequest tracks it in `inFlight` instead).
   */
  private listen(subject: string, respond: (message: Message) => Reply): () => void {
    let sub: NatsSubscription;
    try {
      sub = this.nc.subscribe(this.prefix + subject, {
        callback: (err, msg) => {
          if (err || !msg.reply) return;
          const answer = respond(toMessage(msg));
          try {
            msg.respond(answer.data, { headers: toNats(answer.headers) });
          } catch (sendErr) {
            this.logger.warn({ subject, err: sendErr }, 'chunk not sent');
          }
        },
      });
    } catch (err) {
      throw this.failure(err, subject, this.component);
    }
    return () => sub.unsubscribe();
  }

  private register(subject: string, queue: string | undefined, onMessage: (msg: Msg) => void): Subscription {
    let sub: NatsSubscription;
    try {
      sub = this.nc.subscribe(this.prefix + subject, {
        queue,
        callback: (err, msg) => {
          if (err) this.logger.error({ subject, err }, 'subscription failed');
          else onMessage(msg);
        },
      });
    } catch (err) {
      throw this.failure(err, subject, this.component);
    }
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        this.subscriptions.delete(sub);
        await sub.drain();
      },
    };
  }

  /** NATS's failures, as the AppErrors the transport port promises; unexpected ones are logged. */
  private failure(err: unknown, subject: string, service: string): AppError {
    if (err instanceof TimeoutError) return serviceTimeout(service);
    const expected =
      (err instanceof RequestError && err.isNoResponders()) ||
      err instanceof ClosedConnectionError ||
      err instanceof DrainingConnectionError;
    if (!expected) this.logger.warn({ subject, err }, 'NATS request failed');
    return serviceUnavailable(service);
  }
}
