import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/** The enrichment module's one Prisma client of the data plane. */
export const ENRICHMENT_DB = Symbol('ENRICHMENT_DB');
export const enrichmentDbProviders = prismaClientProviders(ENRICHMENT_DB, 'data', 'enrichment');
export type EnrichmentDb = DataPrismaClient;
export type EnrichmentTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Interactive transactions wait for the connection: PGlite has one for the whole process. */
export const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 };
