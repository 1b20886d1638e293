import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type ConsumerMessages,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_RETRY_DELAY_MS,
  eventSubject,
  type DomainEvent,
  type EventBus,
  type EventHandler,
  type EventLogger,
  type EventSubscription,
  type SubscribeOptions,
} from './event-bus.js';
import { traceDeliveries } from './traced-events.js';

export interface JetStreamEventBusOptions {
  /** NATS_SUBJECT_PREFIX: subjects become `<prefix>.events.>` and the stream `KW_EVENTS_<PREFIX>`. */
  subjectPrefix?: string;
  /** Publish deduplication window (Nats-Msg-Id = event id). */
  duplicateWindowMs?: number;
  /** How long the stream keeps events (consumers lagging longer lose them; the outbox keeps its rows). */
  maxAgeMs?: number;
  /** Closes the connection with the bus (when the bus opened it). */
  ownsConnection?: boolean;
}

const ms = (millis: number) => millis * 1_000_000;
const token = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

/** The stream that holds the events of one subject prefix (tests delete theirs by this name). */
export const eventStreamName = (subjectPrefix?: string): string =>
  subjectPrefix ? `KW_EVENTS_${token(subjectPrefix).toUpperCase()}` : 'KW_EVENTS';

/**
 * The distributed adapter: a `KW_EVENTS` stream on `events.>`, durable pull consumers with
 * explicit ack (unacknowledged messages are redelivered after the ack wait), publish
 * deduplicated by Nats-Msg-Id = outbox id. One durable consumer per (name, event type):
 * NATS 2.9 has no multi-subject filters.
 */
export class JetStreamEventBus implements EventBus {
  readonly kind = 'jetstream' as const;
  private readonly js: JetStreamClient;
  private jsm?: JetStreamManager;
  private ready?: Promise<void>;
  readonly stream: string;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: EventLogger,
    private readonly options: JetStreamEventBusOptions = {},
  ) {
    this.js = jetstream(nc);
    this.stream = eventStreamName(options.subjectPrefix);
  }

  async publish(event: DomainEvent): Promise<void> {
    await this.ensureStream();
    await this.js.publish(eventSubject(event.eventType, this.options.subjectPrefix), JSON.stringify(event), {
      msgID: event.id,
    });
  }

  async subscribe(options: SubscribeOptions, untraced: EventHandler): Promise<EventSubscription> {
    const handler = traceDeliveries(this.kind, options.consumer, untraced);
    await this.ensureStream();
    const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    const concurrency = options.concurrency ?? 8;
    const loops = await Promise.all(
      options.eventTypes.map(async (type) => {
        const durable = `${token(options.consumer)}_${token(type)}`;
        await this.jsm!.consumers.add(this.stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: eventSubject(type, this.options.subjectPrefix),
          ack_wait: ms(ackWaitMs),
          max_deliver: -1,
          max_ack_pending: Math.max(concurrency * 4, 100),
        });
        const consumer = await this.js.consumers.get(this.stream, durable);
        const messages = await consumer.consume({ max_messages: concurrency });
        return {
          messages,
          done: this.run(messages, handler, { concurrency, ackWaitMs, retryDelayMs, consumer: durable }),
        };
      }),
    );
    return {
      stop: async () => {
        for (const loop of loops) await loop.messages.close().catch(() => undefined);
        await Promise.all(loops.map((l) => l.done));
      },
    };
  }

  async close(): Promise<void> {
    if (this.options.ownsConnection) await this.nc.drain().catch(() => undefined);
  }

  private ensureStream(): Promise<void> {
    this.ready ??= (async () => {
      this.jsm = await jetstreamManager(this.nc);
      const subjects = [eventSubject('>', this.options.subjectPrefix)];
      try {
        await this.jsm.streams.info(this.stream);
      } catch {
        await this.jsm.streams
          .add({
            name: this.stream,
            subjects,
            duplicate_window: ms(this.options.duplicateWindowMs ?? 120_000),
            max_age: ms(this.options.maxAgeMs ?? 7 * 24 * 3_600_000),
          })
          .catch(async (err: unknown) => {
            // Another replica created it meanwhile.
            await this.jsm!.streams.info(this.stream).catch(() => {
              throw err;
            });
          });
      }
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  private async run(
    messages: ConsumerMessages,
    handler: EventHandler,
    o: { concurrency: number; ackWaitMs: number; retryDelayMs: number; consumer: string },
  ): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for await (const m of messages) {
      const p = this.handle(m, handler, o).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= o.concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  }

  private async handle(
    m: JsMsg,
    handler: EventHandler,
    o: { ackWaitMs: number; retryDelayMs: number; consumer: string },
  ): Promise<void> {
    let event: DomainEvent;
    try {
      event = m.json<DomainEvent>();
    } catch (err) {
      this.logger.error({ err, subject: m.subject, consumer: o.consumer }, 'undecodable event; terminated');
      m.term();
      return;
    }
    // Long handlers (retries with backoff) tell the server they are alive instead of being redelivered.
    const heartbeat = setInterval(() => m.working(), Math.max(500, Math.floor(o.ackWaitMs / 3)));
    try {
      await handler({ event, deliveryCount: m.info.deliveryCount });
      m.ack();
    } catch (err) {
      this.logger.warn(
        { err, eventId: event.id, consumer: o.consumer, deliveryCount: m.info.deliveryCount },
        'event handler failed; redelivering',
      );
      m.nak(o.retryDelayMs);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
