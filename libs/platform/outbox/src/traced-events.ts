import { extractTraceContext, injectTraceHeaders, SpanKind, tracingEnabled, withSpan } from '@kw/platform-tracing';
import type { DomainEvent, EventBus, EventHandler } from './event-bus.js';

const messagingAttributes = (bus: EventBus['kind'], event: DomainEvent) => ({
  'messaging.system': bus === 'jetstream' ? 'nats' : 'kw-in-process',
  'messaging.destination.name': event.eventType,
  'messaging.message.id': event.id,
});

/**
 * Publishes an outbox event under a producer span whose context travels in the event's headers
 * (`traceparent`), so the consumers' spans join it. The event is published as is while tracing
 * is off.
 */
export function publishTraced(bus: EventBus, event: DomainEvent): Promise<void> {
  if (!tracingEnabled()) return bus.publish(event);
  return withSpan(
    `${event.eventType} publish`,
    {
      kind: SpanKind.PRODUCER,
      parent: extractTraceContext(event.headers),
      attributes: messagingAttributes(bus.kind, event),
    },
    () => bus.publish({ ...event, headers: injectTraceHeaders({ ...event.headers }) }),
  );
}

/** A consumer span around each delivery, child of the producer span named in the event's headers. */
export function traceDeliveries(bus: EventBus['kind'], consumer: string, handler: EventHandler): EventHandler {
  if (!tracingEnabled()) return handler;
  return (delivery) =>
    withSpan(
      `${delivery.event.eventType} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: extractTraceContext(delivery.event.headers),
        attributes: {
          ...messagingAttributes(bus, delivery.event),
          'messaging.consumer.group.name': consumer,
          'kw.delivery_count': delivery.deliveryCount,
        },
      },
      () => handler(delivery),
    );
}
