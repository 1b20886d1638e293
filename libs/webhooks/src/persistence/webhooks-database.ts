import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The webhooks component's one Prisma client of the data plane (PGlite has one connection).
 *
 * Transactions follow the transaction rule of docs/architecture.md, which
 * @kw/platform-persistence enforces (transaction-rule.ts).
 */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
export const webhooksDbProviders = prismaClientProviders(WEBHOOKS_DB, 'data', 'webhooks');
export type WebhooksDb = DataPrismaClient;
