import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type DataPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The Leaf's Prisma client of its data plane (leaf_state, leaf_workspaces). */
export const LEAF_DB = Symbol('LEAF_DB');
export type LeafDb = DataPrismaClient;

export const leafDbProvider = {
  provide: LEAF_DB,
  useFactory: (database: Database | null): LeafDb => {
    if (!database) throw new Error('The leaf component needs the data-plane database');
    return createPrismaClient('data', database.pool);
  },
  inject: [DATABASE],
};

/** Disconnects the client after the transport drained (the pool belongs to the runtime). */
@Injectable()
export class LeafDbCloser implements OnApplicationShutdown {
  constructor(@Inject(LEAF_DB) private readonly db: LeafDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}
