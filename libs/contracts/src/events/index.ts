// Payloads of the events components publish on the bus (JSON in the outbox), shared by writer and readers.
export * from './fragment-events.js';
