import { prismaClientProviders, type ControlPrismaClient } from '@kw/platform-persistence';

/**
 * The one Prisma client of the agent-auth service, over the process's pool (the embedded
 * database allows a single connection per process, so no second pool is ever opened).
 */
export const IDENTITY_DB = Symbol('IDENTITY_DB');
export const identityDbProviders = prismaClientProviders(IDENTITY_DB, 'control', 'agent-auth');
export type IdentityDb = ControlPrismaClient;
