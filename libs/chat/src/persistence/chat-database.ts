import { prismaClientProviders, type ControlPrismaClient } from '@kw/platform-persistence';

/**
 * The chat component's one Prisma client of the control plane. Transactions follow the
 * transaction rule of docs/architecture.md, which @kw/platform-persistence enforces.
 */
export const CHAT_DB = Symbol('CHAT_DB');
export const chatDbProviders = prismaClientProviders(CHAT_DB, 'control', 'chat');
export type ChatDb = ControlPrismaClient;
/** The client handed to an interactive transaction. */
export type ChatTx = Omit<ControlPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
