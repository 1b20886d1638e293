import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type DataPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The enrichment module's one Prisma client of the data plane. */
export const ENRICHMENT_DB = Symbol('ENRICHMENT_DB');
export type EnrichmentDb = DataPrismaClient;
export type EnrichmentTx = Omit<DataPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Interactive transactions wait for the connection: PGlite has one for the whole process. */
export const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 };

export const enrichmentDbProvider = {
  provide: ENRICHMENT_DB,
  useFactory: (database: Database | null): EnrichmentDb => {
    if (!database) throw new Error('Enrichment needs the data-plane database');
    return createPrismaClient('data', database.pool);
  },
  inject: [DATABASE],
};

@Injectable()
export class EnrichmentDbCloser implements OnApplicationShutdown {
  constructor(@Inject(ENRICHMENT_DB) private readonly db: EnrichmentDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}
