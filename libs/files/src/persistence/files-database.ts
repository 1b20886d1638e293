import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The files component's one Prisma client of the data plane. Transactions follow the
 * transaction rule of docs/architecture.md, which @kw/platform-persistence enforces.
 */
export const FILES_DB = Symbol('FILES_DB');
export const filesDbProviders = prismaClientProviders(FILES_DB, 'data', 'files');
export type FilesDb = DataPrismaClient;
