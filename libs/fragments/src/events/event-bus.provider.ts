import { eventBusProvider as busFor } from '@kw/platform-outbox';

export { EVENT_BUS } from '@kw/platform-outbox';

/** The event bus of the fragments process: JetStream (distributed) or the in-process bus. */
export const eventBusProvider = busFor('fragments');
