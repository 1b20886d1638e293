import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/** The search component's one Prisma client of the data plane (one per module: PGlite has one connection). */
export const SEARCH_DB = Symbol('SEARCH_DB');
export const searchDbProviders = prismaClientProviders(SEARCH_DB, 'data', 'search');
export type SearchDb = DataPrismaClient;
