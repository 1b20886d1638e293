/**
 * The event bus port: domain events relayed from the transactional outbox, delivered
 * at least once to durable consumers. Two adapters with the same semantics: JetStream
 * (distributed) and in-process (embedded).
 */
export interface DomainEvent {
  /** The outbox row id: the event id consumers deduplicate on (and JetStream's Nats-Msg-Id). */
  id: string;
  aggregateType: string;
  aggregateId: string;
  /** e.g. `fragment.created`; the subject is `events.<eventType>`. */
  eventType: string;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
  /** When the change was committed (ISO 8601). */
  occurredAt: string;
}

export interface EventDelivery {
  event: DomainEvent;
  /** 1 on the first delivery, more on redeliveries (a consumer crashed or failed). */
  deliveryCount: number;
}

/**
 * Handles one delivery. Resolving acknowledges it; throwing (or never settling before the
 * ack wait) has it delivered again later. Handlers must be idempotent by event id.
 */
export type EventHandler = (delivery: EventDelivery) => Promise<void>;

export interface SubscribeOptions {
  /** Durable consumer name: every consumer of one name shares the work (one delivery each). */
  consumer: string;
  /** Event types to receive (`fragment.created`...). */
  eventTypes: string[];
  /** Deliveries handled at the same time by this process. */
  concurrency?: number;
  /** How long a delivery may stay unacknowledged before it is delivered again. */
  ackWaitMs?: number;
  /** Delay before redelivering a delivery whose handler threw. */
  retryDelayMs?: number;
}

export interface EventSubscription {
  /** Stops taking deliveries and waits for the ones in progress. */
  stop(): Promise<void>;
}

export interface EventBus {
  readonly kind: 'jetstream' | 'in-process';
  publish(event: DomainEvent): Promise<void>;
  subscribe(options: SubscribeOptions, handler: EventHandler): Promise<EventSubscription>;
  close(): Promise<void>;
}

/** pino-compatible logger (what the runtime injects). */
export interface EventLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DEFAULT_RETRY_DELAY_MS = 1_000;

export function eventSubject(eventType: string, prefix?: string): string {
  return `${prefix ? `${prefix}.` : ''}events.${eventType}`;
}
