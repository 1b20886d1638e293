export * from './webhooks.component.js';
export { WEBHOOK_EVENT_TYPES } from './webhooks-limits.js';
export type { WebhookPayload } from './service/delivery/event-payload.js';
export { WebhookValuesRewrap } from './service/webhook-values-rewrap.js';
