import { REQUEST_ID_HEADER } from './context-headers.js';
import { errorReply, exposableError } from './error-reply.js';
import type { Logger } from './logger.js';
import { messageSize } from './message-size.js';
import type { EventHandler, Message, Reply, RequestHandler } from './transport.js';

/** How both adapters run handlers, so their failure behaviour cannot drift apart. */
export interface HandlerScope {
  subject: string;
  logger: Logger;
  maxPayload: number;
}

/**
 * Runs a request handler so that it always produces a reply the transport can send: its
 * own, the error it failed with, or a logged 500 when its reply exceeds the size limit (the
 * caller would otherwise only see a timeout).
 */
export async function replyOf(handler: RequestHandler, message: Message, scope: HandlerScope): Promise<Reply> {
  const fields = { subject: scope.subject, requestId: message.headers[REQUEST_ID_HEADER] };
  let answer: Reply;
  try {
    answer = await handler(message);
  } catch (err) {
    return errorReply(exposableError(err, scope.logger, fields));
  }
  const size = messageSize(answer.data, answer.headers);
  if (size <= scope.maxPayload) return answer;
  const tooBig = new Error(`reply of ${size} bytes exceeds the ${scope.maxPayload} byte limit`);
  return errorReply(exposableError(tooBig, scope.logger, fields));
}

/** Runs an event handler; a failure is logged, as there is nobody to answer. */
export async function runEventHandler(handler: EventHandler, message: Message, scope: Pick<HandlerScope, 'subject' | 'logger'>): Promise<void> {
  try {
    await handler(message);
  } catch (err) {
    scope.logger.error({ subject: scope.subject, requestId: message.headers[REQUEST_ID_HEADER], err }, 'event handler failed');
  }
}
