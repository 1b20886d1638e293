export * from './webhooks.component.js';
export { WEBHOOK_EVENT_TYPES } from './webhook-limits.js';
export type { WebhookPayload } from './service/delivery/event-payload.js';
