import { AppError } from '@kw/platform-errors';
import { isCallerGone } from './deadline.js';
import type { EventHandler, HandleOptions, RequestHandler, SubscribeOptions, Transport } from './transport.js';

/**
 * How a handled message ended: answered, refused (a 4xx the caller caused), failed, or
 * expired (its caller stopped waiting: dropped unhandled, or abandoned before its commit).
 */
export type HandledOutcome = 'ok' | 'refused' | 'failed' | 'expired';

export function outcomeOf(err: unknown): HandledOutcome {
  if (isCallerGone(err)) return 'expired';
  return AppError.isAppError(err) && err.status < 500 ? 'refused' : 'failed';
}

/**
 * The transport with every message its handlers take counted by subject and outcome (the
 * process's kw_messages_handled_total). Subjects are the services' methods and event names,
 * a bounded set; the counting wraps the handlers, so both adapters count alike.
 */
export function countHandled(
  transport: Transport,
  count: (subject: string, outcome: HandledOutcome) => void,
): Transport {
  const counted =
    <M, R>(subject: string, handler: (message: M) => R | Promise<R>) =>
    async (message: M): Promise<R> => {
      try {
        const result = await handler(message);
        count(subject, 'ok');
        return result;
      } catch (err) {
        count(subject, outcomeOf(err));
        throw err;
      }
    };
  return {
    component: transport.component,
    get maxPayload() {
      return transport.maxPayload;
    },
    request: (subject, data, options) => transport.request(subject, data, options),
    handle: (subject: string, handler: RequestHandler, options?: HandleOptions) =>
      transport.handle(subject, counted(subject, handler), options),
    publish: (subject, data, options) => transport.publish(subject, data, options),
    subscribe: (subject: string, handler: EventHandler, options?: SubscribeOptions) =>
      transport.subscribe(subject, counted(subject, handler), options),
    flush: () => transport.flush(),
    drain: () => transport.drain(),
    ...(transport.onLinkLost ? { onLinkLost: (listener: () => void) => transport.onLinkLost!(listener) } : {}),
  };
}
