import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type DataPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The search component's one Prisma client of the data plane (one per module: PGlite has one connection). */
export const SEARCH_DB = Symbol('SEARCH_DB');
export type SearchDb = DataPrismaClient;

export const searchDbProvider = {
  provide: SEARCH_DB,
  useFactory: (database: Database | null): SearchDb => {
    if (!database) throw new Error('The search component needs the data-plane database');
    return createPrismaClient('data', database.pool);
  },
  inject: [DATABASE],
};

/** Disconnects the client after the transport drained (the pool itself belongs to the runtime). */
@Injectable()
export class SearchDbCloser implements OnApplicationShutdown {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}
