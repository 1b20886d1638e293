import { serviceTimeout } from '@kw/platform-errors';
import { CHUNK_IDLE_TIMEOUT_MS, MAX_MESSAGE_BYTES, outgoing, reassemble, sendable, type Wire } from './chunks.js';
import { REQUEST_ID_HEADER } from './context-headers.js';
import { lateBy, withGrace } from './deadline.js';
import { errorReply, exposableError } from './error-reply.js';
import type { InFlight } from './in-flight.js';
import type { Logger } from './logger.js';
import { messageSize } from './message-size.js';
import type { EventHandler, Message, Reply, RequestHandler } from './transport.js';

/** How both adapters run handlers, so their failure behaviour cannot drift apart. */
export interface HandlerScope {
  subject: string;
  logger: Logger;
  /** The adapter's one-message limit; replies above it go in chunks. */
  maxPayload: number;
}

/**
 * Runs a request handler so that it always produces a reply the transport can send: its
 * own, the error it failed with, or a logged 500 when its reply exceeds MAX_MESSAGE_BYTES
 * (the caller would otherwise only see a timeout).
 */
export async function replyOf(handler: RequestHandler, message: Message, scope: HandlerScope): Promise<Reply> {
  const fields = { subject: scope.subject, requestId: message.headers[REQUEST_ID_HEADER] };
  let answer: Reply;
  try {
    answer = await handler(message);
  } catch (err) {
    return errorReply(exposableError(err, scope.logger, fields));
  }
  if (sendable(scope.maxPayload, answer.data, answer.headers)) return answer;
  const size = messageSize(answer.data, answer.headers);
  const tooBig = new Error(
    `reply of ${size} bytes exceeds the ${MAX_MESSAGE_BYTES} byte limit (or its headers the ${scope.maxPayload} byte message)`,
  );
  return errorReply(exposableError(tooBig, scope.logger, fields));
}

/** What answerRequest needs besides the handler's scope. */
export interface RequestScope extends HandlerScope {
  inFlight: InFlight;
  /** How late past its deadline a request is still handled. */
  deadlineGraceMs: number;
  onExpired?: (subject: string) => void;
}

/**
 * Answers one request message as both adapters do: drops it when its caller has stopped
 * waiting (deadline.ts), reassembles a chunked request, runs the handler (replyOf), and
 * returns the one message to reply with; the rest of a big reply is served in chunks, tracked
 * in `inFlight` so that drain() waits for the caller to fetch it.
 */
export async function answerRequest(
  wire: Wire,
  handler: RequestHandler,
  message: Message,
  scope: RequestScope,
): Promise<Reply> {
  const fields = { subject: scope.subject, requestId: message.headers[REQUEST_ID_HEADER] };
  const late = lateBy(message.headers, scope.deadlineGraceMs);
  if (late !== undefined) {
    // Checked before the chunks are fetched: the caller has closed its chunk server too.
    scope.logger.warn({ ...fields, lateByMs: late }, 'request dropped: its caller stopped waiting');
    scope.onExpired?.(scope.subject);
    return errorReply(serviceTimeout(scope.subject));
  }
  let whole: Message;
  try {
    whole = await reassemble(wire, message, {
      subject: scope.subject,
      service: 'calling',
      timeoutMs: CHUNK_IDLE_TIMEOUT_MS,
    });
  } catch (err) {
    return errorReply(exposableError(err, scope.logger, fields));
  }
  const answer = await replyOf(handler, { ...whole, headers: withGrace(whole.headers, scope.deadlineGraceMs) }, scope);
  const out = outgoing(wire, answer.data, answer.headers ?? {}, CHUNK_IDLE_TIMEOUT_MS);
  // replyOf checked the reply is sendable; this only guards a maxPayload that shrank meanwhile.
  if (!out) return errorReply(exposableError(new Error('reply no longer fits the transport'), scope.logger, fields));
  scope.inFlight.track(out.closed);
  return out.message;
}

/** Runs an event handler; a failure is logged, as there is nobody to answer. */
export async function runEventHandler(
  handler: EventHandler,
  message: Message,
  scope: Pick<HandlerScope, 'subject' | 'logger'>,
): Promise<void> {
  try {
    await handler(message);
  } catch (err) {
    scope.logger.error(
      { subject: scope.subject, requestId: message.headers[REQUEST_ID_HEADER], err },
      'event handler failed',
    );
  }
}
