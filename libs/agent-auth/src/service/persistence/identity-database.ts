import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type ControlPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/**
 * The one Prisma client of the agent-auth service, over the process's pool (the embedded
 * database allows a single connection per process, so no second pool is ever opened).
 */
@Injectable()
export class IdentityDatabase implements OnApplicationShutdown {
  readonly client: ControlPrismaClient;

  constructor(@Inject(DATABASE) database: Database | null) {
    if (!database) throw new Error('agent-auth needs the control-plane database');
    this.client = createPrismaClient('control', database.pool);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
  }
}
