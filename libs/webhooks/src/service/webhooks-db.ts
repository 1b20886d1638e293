import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type DataPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The webhooks component's one Prisma client of the data plane (PGlite has one connection). */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
export type WebhooksDb = DataPrismaClient;
export type WebhookRow = Awaited<ReturnType<WebhooksDb['webhook']['findUniqueOrThrow']>>;
export type DeliveryRow = Awaited<ReturnType<WebhooksDb['webhookDelivery']['findUniqueOrThrow']>>;
export type AttemptRow = Awaited<ReturnType<WebhooksDb['webhookDeliveryAttempt']['findUniqueOrThrow']>>;

export const webhooksDbProvider = {
  provide: WEBHOOKS_DB,
  useFactory: (database: Database | null): WebhooksDb => {
    if (!database) throw new Error('The webhooks component needs the data-plane database');
    return createPrismaClient('data', database.pool);
  },
  inject: [DATABASE],
};

/** Disconnects the client after the transport drained (the pool belongs to the runtime). */
@Injectable()
export class WebhooksDbCloser implements OnApplicationShutdown {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: WebhooksDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}
