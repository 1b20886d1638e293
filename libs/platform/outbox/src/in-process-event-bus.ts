import { AsyncResource } from 'node:async_hooks';
import {
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_RETRY_DELAY_MS,
  type DomainEvent,
  type EventBus,
  type EventHandler,
  type EventLogger,
  type EventSubscription,
  type SubscribeOptions,
} from './event-bus.js';
import { traceDeliveries } from './traced-events.js';

interface Pending {
  event: DomainEvent;
  deliveryCount: number;
}

interface Consumer {
  options: Required<Pick<SubscribeOptions, 'concurrency' | 'ackWaitMs' | 'retryDelayMs'>> & SubscribeOptions;
  handlers: EventHandler[];
  queue: Pending[];
  inFlight: number;
  next: number;
  idle: Array<() => void>;
}

const DEDUPE_WINDOW = 10_000;
/**
 * A durable consumer created after events were published still receives them, as a JetStream
 * consumer would from the stream, within a bounded window: start-up order (which component
 * subscribes first) never decides who sees an event.
 */
const RETAIN_MAX = 10_000;
const RETAIN_MS = 5 * 60_000;

/**
 * The embedded adapter: JetStream's semantics in memory. Durable consumers by name (several
 * subscribers of one name share deliveries), at-least-once delivery, redelivery after a
 * handler error or after the ack wait, and publish deduplication by event id.
 * Recent events are kept (RETAIN_MAX, RETAIN_MS) and replayed to each new consumer, like a stream.
 * Nothing survives the process: the outbox is the durable copy (unprocessed events of a
 * crashed embedded process are not replayed; the re-enrich route covers that case).
 */
export class InProcessEventBus implements EventBus {
  readonly kind = 'in-process' as const;
  private readonly consumers = new Map<string, Consumer>();
  /** Recently published events, oldest first, for consumers that subscribe later. */
  private readonly retained: Array<{ event: DomainEvent; at: number }> = [];
  private readonly seen = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly logger?: EventLogger) {}

  async publish(event: DomainEvent): Promise<void> {
    if (this.closed) throw new Error('event bus closed');
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    if (this.seen.size > DEDUPE_WINDOW) this.seen.delete(this.seen.values().next().value as string);
    this.retain(event);
    for (const consumer of this.consumers.values()) {
      if (consumer.options.eventTypes.includes(event.eventType)) this.enqueue(consumer, { event, deliveryCount: 0 });
    }
  }

  async subscribe(options: SubscribeOptions, untraced: EventHandler): Promise<EventSubscription> {
    // Deliveries run in the subscriber's async context, never the publisher's: the relay
    // publishes inside its outbox transaction, and a handler started there would count as inside
    // it (the transaction rule refuses its first statement), like a JetStream delivery never is.
    const handler = AsyncResource.bind(traceDeliveries(this.kind, options.consumer, untraced));
    let consumer = this.consumers.get(options.consumer);
    if (!consumer) {
      consumer = {
        options: { concurrency: 8, ackWaitMs: DEFAULT_ACK_WAIT_MS, retryDelayMs: DEFAULT_RETRY_DELAY_MS, ...options },
        handlers: [],
        queue: [],
        inFlight: 0,
        next: 0,
        idle: [],
      };
      this.consumers.set(options.consumer, consumer);
      this.prune();
      for (const { event } of this.retained)
        if (options.eventTypes.includes(event.eventType)) consumer.queue.push({ event, deliveryCount: 0 });
    }
    consumer.handlers.push(handler);
    this.pump(consumer);
    const target = consumer;
    return {
      stop: async () => {
        target.handlers = target.handlers.filter((h) => h !== handler);
        if (target.inFlight > 0) await new Promise<void>((resolve) => target.idle.push(resolve));
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private retain(event: DomainEvent): void {
    this.retained.push({ event, at: Date.now() });
    this.prune();
  }

  private prune(): void {
    const cutoff = Date.now() - RETAIN_MS;
    let drop = Math.max(0, this.retained.length - RETAIN_MAX);
    while (drop < this.retained.length && this.retained[drop]!.at < cutoff) drop++;
    if (drop > 0) this.retained.splice(0, drop);
  }

  private enqueue(consumer: Consumer, pending: Pending): void {
    consumer.queue.push(pending);
    this.pump(consumer);
  }

  private later(fn: () => void, ms: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref?.();
    this.timers.add(timer);
  }

  private pump(consumer: Consumer): void {
    while (
      !this.closed &&
      consumer.handlers.length > 0 &&
      consumer.inFlight < consumer.options.concurrency &&
      consumer.queue.length > 0
    ) {
      const pending = consumer.queue.shift()!;
      const handler = consumer.handlers[consumer.next++ % consumer.handlers.length];
      pending.deliveryCount++;
      consumer.inFlight++;
      void this.deliver(consumer, handler, pending);
    }
  }

  private async deliver(consumer: Consumer, handler: EventHandler, pending: Pending): Promise<void> {
    let settled = false;
    // Like an ack wait: a delivery that takes too long is handed out again.
    const ackWait = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.logger?.warn(
        { eventId: pending.event.id, consumer: consumer.options.consumer },
        'event not acknowledged in time; redelivering',
      );
      consumer.inFlight--;
      this.enqueue(consumer, { event: pending.event, deliveryCount: pending.deliveryCount });
    }, consumer.options.ackWaitMs);
    ackWait.unref?.();
    try {
      await handler({ event: pending.event, deliveryCount: pending.deliveryCount });
      if (settled) return;
      settled = true;
      clearTimeout(ackWait);
      consumer.inFlight--;
    } catch (err) {
      if (settled) return;
      settled = true;
      clearTimeout(ackWait);
      consumer.inFlight--;
      this.logger?.warn(
        { err, eventId: pending.event.id, consumer: consumer.options.consumer, deliveryCount: pending.deliveryCount },
        'event handler failed; redelivering',
      );
      this.later(
        () => this.enqueue(consumer, { event: pending.event, deliveryCount: pending.deliveryCount }),
        consumer.options.retryDelayMs,
      );
    }
    if (consumer.inFlight === 0) for (const resolve of consumer.idle.splice(0)) resolve();
    this.pump(consumer);
  }
}

let shared: InProcessEventBus | undefined;

/** The process's one in-process bus: every component of an embedded process shares it. */
export function sharedInProcessEventBus(logger?: EventLogger): InProcessEventBus {
  shared ??= new InProcessEventBus(logger);
  return shared;
}
