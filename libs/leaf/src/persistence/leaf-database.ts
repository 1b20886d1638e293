import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/** The Leaf's Prisma client of its data plane (leaf_state, leaf_workspaces). */
export const LEAF_DB = Symbol('LEAF_DB');
export const leafDbProviders = prismaClientProviders(LEAF_DB, 'data', 'leaf');
export type LeafDb = DataPrismaClient;
