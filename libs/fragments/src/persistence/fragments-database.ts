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
/** The client handed to an interactive transaction. */
export type DataTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Enrichment's interactive transactions wait for the connection: PGlite has one for the whole process. */
export const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 };
