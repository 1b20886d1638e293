import { serviceTimeout, serviceUnavailable } from '@kw/platform-errors';
import { requestOverWire, type Wire } from './chunks.js';
import { InFlight } from './in-flight.js';
import { InProcessBus } from './in-process-bus.js';
import { consoleLogger, type Logger } from './logger.js';
import { DEFAULT_MAX_PAYLOAD, messageSize, payloadTooLarge } from './message-size.js';
import { answerRequest, runEventHandler } from './run-handler.js';
import type {
  EventHandler,
  HandleOptions,
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

export interface InProcessTransportOptions extends TransportOptions {
  /** The bus shared by the components of this process; a private one when omitted. */
  bus?: InProcessBus;
  /** Same limit as NATS's max_payload, so bigger requests and replies go in chunks here too. */
  maxPayload?: number;
}

/**
 * The transport of the embedded mode: one per component, all on one InProcessBus. It moves
 * encoded bytes like NatsTransport does, with the same timeouts, errors and queue groups,
 * so a component cannot tell (and tests cannot miss) which one it runs on. Big requests and
 * replies are chunked exactly as over NATS (chunks.ts), so that code runs in both modes.
 */
export class InProcessTransport implements Transport {
  readonly component: string;
  private readonly bus: InProcessBus;
  private readonly prefix: string;
  private readonly logger: Logger;
  /** When a request arrived too late to be worth handling (deadline.ts). */
  private readonly deadline: ReturnType<typeof deadlineScope>;
  readonly maxPayload: number;
  private readonly inFlight = new InFlight();
  /** One message each way, what chunks.ts builds requests and replies of any size on. */
  private readonly wire: Wire;
  private readonly removals = new Set<() => void>();
  private closed = false;

  constructor(options: InProcessTransportOptions) {
    this.component = options.component;
    this.bus = options.bus ?? new InProcessBus();
    this.prefix = options.subjectPrefix ?? '';
    this.logger = options.logger ?? consoleLogger;
    this.deadline = deadlineScope(options);
    this.maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
    this.wire = {
      maxPayload: this.maxPayload,
      send: (subject, message, timeoutMs, service) => this.sendOne(subject, message, timeoutMs, service),
      listen: (subject, respond) =>
        this.bus.add(this.prefix + subject, { deliver: (message, reply) => reply?.(respond(message)) }),
    };
  }

  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<Message> {
    return requestOverWire(this.wire, subject, data, options, this.logger);
  }

  /** One message and its reply as received, with NATS's limit, timeout and "no responders". */
  private sendOne(subject: string, message: Message, timeoutMs: number, service: string): Promise<Message> {
    const { data, headers } = message;
    if (this.closed) return Promise.reject(serviceUnavailable(service));
    if (messageSize(data, headers) > this.maxPayload) return Promise.reject(payloadTooLarge(subject, this.maxPayload));

    return new Promise<Message>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(() => settle(() => reject(serviceTimeout(service))), timeoutMs);
      const receivers = this.bus.dispatch(this.prefix + subject, { data, headers }, (answer) =>
        settle(() => resolve({ data: answer.data.slice(), headers: { ...(answer.headers ?? {}) } })),
      );
      // NATS answers "no responders" as soon as the server sees the request; do the same.
      if (receivers === 0) setImmediate(() => settle(() => reject(serviceUnavailable(service))));
    });
  }

  handle(subject: string, handler: RequestHandler, options: HandleOptions = {}): Subscription {
    return this.register(subject, options.queue ?? this.component, (message, reply) => {
      if (!reply) {
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
      this.inFlight.track(answerRequest(this.wire, handler, message, scope).then(reply));
    });
  }

  publish(subject: string, data: Uint8Array, options: PublishOptions = {}): void {
    const headers = options.headers ?? {};
    if (this.closed) throw serviceUnavailable(subject);
    if (messageSize(data, headers) > this.maxPayload) throw payloadTooLarge(subject, this.maxPayload);
    this.bus.dispatch(this.prefix + subject, { data, headers });
  }

  subscribe(subject: string, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    return this.register(subject, options.queue, (message) => {
      this.inFlight.track(runEventHandler(handler, message, { subject, logger: this.logger }));
    });
  }

  async flush(): Promise<void> {
    // Registration on the bus is immediate.
  }

  async drain(): Promise<void> {
    for (const remove of this.removals) remove();
    this.removals.clear();
    await this.inFlight.idle();
    this.closed = true;
  }

  private register(
    subject: string,
    queue: string | undefined,
    deliver: (message: Message, reply?: (answer: Reply) => void) => void,
  ): Subscription {
    if (this.closed) throw serviceUnavailable(this.component);
    const remove = this.bus.add(this.prefix + subject, { queue, deliver });
    this.removals.add(remove);
    return {
      unsubscribe: async () => {
        remove();
        this.removals.delete(remove);
      },
    };
  }
}
