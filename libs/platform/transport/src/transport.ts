import type { Logger } from './logger.js';

/**
 * The transport port: how components exchange messages, whether they share a process
 * (InProcessTransport) or not (NatsTransport). It moves bytes and headers only; typing,
 * encoding and the request context live above it (ServiceClient, serve).
 *
 * Both adapters honour the same contract, checked by transport.conformance.spec.ts:
 * - request() resolves with the first reply, or rejects with an AppError: the one the handler
 *   threw, 500 INTERNAL_ERROR for anything else it threw, 503 SERVICE_UNAVAILABLE when nobody
 *   handles the subject, 504 SERVICE_TIMEOUT when no reply came in time, 413
 *   PAYLOAD_TOO_LARGE when the request exceeds MAX_MESSAGE_BYTES (64 MiB);
 * - requests and replies of any size up to MAX_MESSAGE_BYTES arrive whole and byte-exact:
 *   what does not fit in one message (maxPayload) travels in chunks (chunks.ts), unseen by
 *   callers and handlers; a handler's reply above the bound reaches the caller as a logged 500;
 * - handlers of one subject in the same queue group share the load (one of them gets each
 *   request); the queue group defaults to the transport's component name;
 * - publish() is fire-and-forget: every subscriber gets the event, except that subscribers
 *   sharing a queue group get one copy between them; an event must fit in one message (413);
 * - drain() stops taking new messages, lets in-flight handlers finish and reply, then closes;
 * - a request carries its caller's deadline (kw-deadline); one that reaches its handler later
 *   than that (plus deadlineGraceMs) is dropped unhandled: its caller already got 504.
 * Subjects are exact names (no `*`/`>` wildcards), so the in-memory bus can match NATS.
 */

/** Message headers. Names are lower-case (`kw-*`, and W3C `traceparent`/`tracestate` while tracing is on); values are single strings. */
export type Headers = Record<string, string>;

export interface Message {
  data: Uint8Array;
  headers: Headers;
}

export interface Reply {
  data: Uint8Array;
  headers?: Headers;
}

export interface RequestOptions {
  headers?: Headers;
  timeoutMs: number;
  /** Who is asked, for error messages ("The search service is unavailable"); defaults to the subject. */
  service?: string;
}

export interface PublishOptions {
  headers?: Headers;
}

export interface HandleOptions {
  /** Queue group; defaults to the transport's component name. */
  queue?: string;
}

export interface SubscribeOptions {
  /** Share events among the members of this group instead of giving each subscriber a copy. */
  queue?: string;
}

/** Answers one request. A thrown AppError reaches the caller as is; anything else as 500. */
export type RequestHandler = (message: Message) => Promise<Reply>;
/** Receives one event. A thrown error is logged, there is nobody to answer. */
export type EventHandler = (message: Message) => Promise<void> | void;

export interface Subscription {
  /** Stops receiving; messages already being handled finish. */
  unsubscribe(): Promise<void>;
}

export interface Transport {
  /** The component this transport serves as (default queue group, log field). */
  readonly component: string;
  /** Largest single message, headers included (NATS's max_payload): the limit of an event. */
  readonly maxPayload: number;
  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<Message>;
  handle(subject: string, handler: RequestHandler, options?: HandleOptions): Subscription;
  publish(subject: string, data: Uint8Array, options?: PublishOptions): void;
  subscribe(subject: string, handler: EventHandler, options?: SubscribeOptions): Subscription;
  /** Resolves once every handler and subscription registered so far receives messages. */
  flush(): Promise<void>;
  drain(): Promise<void>;
  /**
   * Registers a listener called each time the link to the message bus drops (NATS): events and
   * broadcasts published meanwhile never arrive. Absent where the bus cannot drop (in-process).
   * Returns the unregistration.
   */
  onLinkLost?(listener: () => void): () => void;
}

export interface TransportOptions {
  /** Component name: the default queue group of handlers. */
  component: string;
  /** Prepended to every subject, so test runs sharing one NATS server never see each other. */
  subjectPrefix?: string;
  /** Where failures of handlers are reported; defaults to consoleLogger. */
  logger?: Logger;
  /**
   * How late past its caller's deadline (deadline.ts) a request is still handled; a later one
   * is dropped without running its handler. Defaults to DEFAULT_DEADLINE_GRACE_MS.
   */
  deadlineGraceMs?: number;
  /** Told of every request dropped for its deadline, for a metric. */
  onExpired?: (subject: string) => void;
}
