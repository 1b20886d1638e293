import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/** The component's one Prisma client of the data plane (one per module: PGlite has one connection). */
export const FRAGMENTS_DB = Symbol('FRAGMENTS_DB');
export const fragmentsDbProviders = prismaClientProviders(FRAGMENTS_DB, 'data', 'fragments');
export type DataDb = DataPrismaClient;
/** The client handed to an interactive transaction. */
export type DataTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export type FragmentRow = Awaited<ReturnType<DataPrismaClient['fragment']['findUniqueOrThrow']>>;
export type FragmentTypeRow = Awaited<ReturnType<DataPrismaClient['fragmentType']['findUniqueOrThrow']>>;
export type CollectionRow = Awaited<ReturnType<DataPrismaClient['collection']['findUniqueOrThrow']>>;

/** Whether an error is a unique-constraint violation: Prisma's P2002, or SQLSTATE 23505 from a `pg` statement. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'P2002' || code === '23505';
}
