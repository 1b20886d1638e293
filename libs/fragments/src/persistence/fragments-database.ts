import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The component's one Prisma client of the data plane, for the handlers and the enrichment
 * pipeline alike, over the process's pool (no second pool is ever opened).
 *
 * Transactions follow the transaction rule of docs/architecture.md, which
 * @kw/platform-persistence enforces (transaction-rule.ts).
 */
export const FRAGMENTS_DB = Symbol('FRAGMENTS_DB');
export const fragmentsDbProviders = prismaClientProviders(FRAGMENTS_DB, 'data', 'fragments');
export type DataDb = DataPrismaClient;
