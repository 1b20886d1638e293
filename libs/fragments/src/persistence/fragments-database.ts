import { prismaClientProviders, type DataPrismaClient } from '@kw/platform-persistence';

/**
 * The component's one Prisma client of the data plane, for the handlers and the enrichment
 * pipeline alike, over the process's pool (no second pool is ever opened).
 *
 * THE TRANSACTION RULE (docs/architecture.md): in the embedded default the pool has one
 * connection (PGlite has one session), so code inside a Prisma interactive transaction must
 * never use the `pg` pool: it would wait, forever, for the connection the transaction holds.
 * A repository that needs several statements atomically uses one Prisma transaction, or one
 * SQL statement (a CTE), never both.
 */
export const FRAGMENTS_DB = Symbol('FRAGMENTS_DB');
export const fragmentsDbProviders = prismaClientProviders(FRAGMENTS_DB, 'data', 'fragments');
export type DataDb = DataPrismaClient;
/** The client handed to an interactive transaction. */
export type DataTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Enrichment's interactive transactions wait for the connection: PGlite has one for the whole process. */
export const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 };

/** Whether an error is a unique-constraint violation: Prisma's P2002, or SQLSTATE 23505 from a `pg` statement. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'P2002' || code === '23505';
}
