import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { Database } from '../open-database.js';
import type { Plane } from '../planes.js';
import { createPrismaClient, type ControlPrismaClient, type DataPrismaClient } from '../prisma/create-prisma-client.js';

/** DI token of the process's database (its pool), provided by the runtime to every component. */
export const DATABASE = Symbol('DATABASE');

type ClientOf<P extends Plane> = P extends 'control' ? ControlPrismaClient : DataPrismaClient;

/**
 * A component's Prisma client of one plane, under its own token, and its disconnection at
 * shutdown (after the transport drained; the pool itself belongs to the runtime). One client per
 * module, so a component's queries never wait behind another's on PGlite's one connection.
 * This is the only place a Prisma client is made for Nest: components list these providers.
 */
export function prismaClientProviders<P extends Plane>(token: symbol, plane: P, component: string): Provider[] {
  @Injectable()
  class PrismaClientCloser implements OnApplicationShutdown {
    constructor(@Inject(token) private readonly client: ClientOf<P>) {}

    async onApplicationShutdown(): Promise<void> {
      await this.client.$disconnect().catch(() => undefined);
    }
  }
  const client: Provider = {
    provide: token,
    useFactory: (database: Database | null): ClientOf<P> => {
      if (!database) throw new Error(`The ${component} component needs the ${plane}-plane database`);
      return createPrismaClient(plane, database.pool) as ClientOf<P>;
    },
    inject: [DATABASE],
  };
  return [client, PrismaClientCloser];
}
