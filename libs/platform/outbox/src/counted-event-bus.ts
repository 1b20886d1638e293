import { outcomeOf, type HandledOutcome } from '@kw/platform-transport';
import type { EventBus } from './event-bus.js';

/**
 * The bus with every delivery its consumers take counted by event (`events.<type>`) and
 * outcome as the transport counts its requests (`outcomeOf`; a delivery whose handler threw comes
 * again): the process's kw_messages_handled_total.
 */
export function countDeliveries(bus: EventBus, count: (subject: string, outcome: HandledOutcome) => void): EventBus {
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
          count(subject, outcomeOf(err));
          throw err;
        }
      }),
    close: () => bus.close(),
  };
}
