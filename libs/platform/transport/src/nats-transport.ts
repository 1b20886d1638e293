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
import { serviceTimeout, serviceUnavailable, type AppError } from '@kw/platform-errors';
import { errorOf } from './error-reply.js';
import { InFlight } from './in-flight.js';
import { consoleLogger, type Logger } from './logger.js';
import { DEFAULT_MAX_PAYLOAD, messageSize, payloadTooLarge } from './message-size.js';
import { replyOf, runEventHandler } from './run-handler.js';
import type {
  EventHandler,
  HandleOptions,
  Headers,
  Message,
  PublishOptions,
  RequestHandler,
  RequestOptions,
  SubscribeOptions,
  Subscription,
  Transport,
  TransportOptions,
} from './transport.js';

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
 * The transport owns the connection: drain() closes it.
 */
export class NatsTransport implements Transport {
  readonly component: string;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Set<NatsSubscription>();

  constructor(
    private readonly nc: NatsConnection,
    options: TransportOptions,
  ) {
    this.component = options.component;
    this.prefix = options.subjectPrefix ?? '';
    this.logger = options.logger ?? consoleLogger;
  }

  /** The server's limit (headers included); NATS's default until the first INFO arrives. */
  private get maxPayload(): number {
    return this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  async request(subject: string, data: Uint8Array, options: RequestOptions): Promise<Message> {
    const service = options.service ?? subject;
    if (messageSize(data, options.headers) > this.maxPayload) throw payloadTooLarge(subject, this.maxPayload);
    let msg: Msg;
    try {
      msg = await this.nc.request(this.prefix + subject, data, { timeout: options.timeoutMs, headers: toNats(options.headers) });
    } catch (err) {
      throw this.failure(err, subject, service);
    }
    const reply = toMessage(msg);
    const error = errorOf(reply.headers);
    if (error) throw error;
    return reply;
  }

  handle(subject: string, handler: RequestHandler, options: HandleOptions = {}): Subscription {
    return this.register(subject, options.queue ?? this.component, (msg) => {
      if (!msg.reply) {
        this.logger.warn({ subject }, 'event published on a request subject; ignored');
        return;
      }
      const work = replyOf(handler, toMessage(msg), { subject, logger: this.logger, maxPayload: this.maxPayload }).then((answer) => {
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
      (err instanceof RequestError && err.isNoResponders()) || err instanceof ClosedConnectionError || err instanceof DrainingConnectionError;
    if (!expected) this.logger.warn({ subject, err }, 'NATS request failed');
    return serviceUnavailable(service);
  }
}
