export * from './event-bus.js';
export * from './in-process-event-bus.js';
export * from './jetstream-event-bus.js';
export * from './outbox-relay.js';
export * from './processed-events.js';
export * from './create-event-bus.js';
export * from './event-bus.provider.js';
export * from './polling-loop.js';
