import { AppError } from '@kw/platform-errors';
import type { EventBus } from './event-bus.js';

/**
 * The bus with every delivery its consumers take counted by event (`events.<type>`) and
 * outcome: `ok`, or `failed` when the handler threw and the delivery comes again (the
 * process's kw_messages_handled_total, beside the transport's requests).
 */
export function countDeliveries(
  bus: EventBus,
  count: (subject: string, outcome: 'ok' | 'refused' | 'failed') => void,
): EventBus {
  return {
    kind: bus.kind,
    publish: (event) => bus.publish(event),
    subscribe: (options, handler) =>
      bus.subscribe(options, async (delivery) => {
        const subject = `events.${delivery.event.eventType}`;
        try {
          await handler(delivery);
          count(subject, 'ok');
        } catch (err) {
          count(subject, AppError.isAppError(err) && err.status < 500 ? 'refused' : 'failed');
          throw err;
        }
      }),
    close: () => bus.close(),
  };
}
