import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/** The webhooks component's one Prisma client of the data plane (PGlite has one connection). */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
export const webhooksDbProviders = prismaClientProviders(WEBHOOKS_DB, 'data', 'webhooks');
export type WebhooksDb = DataPrismaClient;
export type WebhookRow = Awaited<ReturnType<WebhooksDb['webhook']['findUniqueOrThrow']>>;
export type DeliveryRow = Awaited<ReturnType<WebhooksDb['webhookDelivery']['findUniqueOrThrow']>>;
export type AttemptRow = Awaited<ReturnType<WebhooksDb['webhookDeliveryAttempt']['findUniqueOrThrow']>>;
