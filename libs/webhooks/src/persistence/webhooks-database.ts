import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The webhooks component's one Prisma client of the data plane (PGlite has one connection).
 *
 * The transaction rule (docs/architecture.md): in the embedded default the pool has one
 * connection, so code inside a Prisma interactive transaction never uses the `pg` pool (it
 * would wait forever for the connection the transaction holds). A repository method that
 * needs several statements atomically uses one Prisma transaction, or one SQL statement.
 */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
export const webhooksDbProviders = prismaClientProviders(WEBHOOKS_DB, 'data', 'webhooks');
export type WebhooksDb = DataPrismaClient;
