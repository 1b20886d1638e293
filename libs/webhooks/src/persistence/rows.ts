import type { WebhooksDb } from './webhooks-database.js';

export type WebhookRow = Awaited<ReturnType<WebhooksDb['webhook']['findUniqueOrThrow']>>;
export type DeliveryRow = Awaited<ReturnType<WebhooksDb['webhookDelivery']['findUniqueOrThrow']>>;
export type AttemptRow = Awaited<ReturnType<WebhooksDb['webhookDeliveryAttempt']['findUniqueOrThrow']>>;
export type DeliveryWithAttempts = DeliveryRow & { attemptLog: AttemptRow[] };
