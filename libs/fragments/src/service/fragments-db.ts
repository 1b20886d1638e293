import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type DataPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The component's one Prisma client of the data plane (one per module: PGlite has one connection). */
export const FRAGMENTS_DB = Symbol('FRAGMENTS_DB');
export type DataDb = DataPrismaClient;
/** The client handed to an interactive transaction. */
export type DataTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export type FragmentRow = Awaited<ReturnType<DataPrismaClient['fragment']['findUniqueOrThrow']>>;
export type FragmentTypeRow = Awaited<ReturnType<DataPrismaClient['fragmentType']['findUniqueOrThrow']>>;
export type CollectionRow = Awaited<ReturnType<DataPrismaClient['collection']['findUniqueOrThrow']>>;

export const fragmentsDbProvider = {
  provide: FRAGMENTS_DB,
  useFactory: (database: Database | null): DataDb => {
    if (!database) throw new Error('The fragments component needs the data-plane database');
    return createPrismaClient('data', database.pool);
  },
  inject: [DATABASE],
};

/** Disconnects the client after the transport drained (the pool itself belongs to the runtime). */
@Injectable()
export class FragmentsDbCloser implements OnApplicationShutdown {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}

/** Whether an error is a unique-constraint violation: Prisma's P2002, or SQLSTATE 23505 from a `pg` statement. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'P2002' || code === '23505';
}
