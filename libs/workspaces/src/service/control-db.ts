import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ControlPrisma, createPrismaClient, PLANE_SCHEMAS, type ControlPrismaClient, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** The component's one Prisma client of the control plane (one per module: PGlite has one connection). */
export const WORKSPACES_DB = Symbol('WORKSPACES_DB');
export type ControlDb = ControlPrismaClient;
/** The client handed to an interactive transaction. */
export type ControlTx = Omit<ControlPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** A workspace row; `hostedZone` is there when the query included ZONE_ENDPOINT (workspace-view.ts). */
export type WorkspaceRow = Awaited<ReturnType<ControlPrismaClient['workspace']['findUniqueOrThrow']>> & {
  hostedZone?: { endpointUrl: string | null } | null;
};
export type MemberRow = Awaited<ReturnType<ControlPrismaClient['workspaceMember']['findUniqueOrThrow']>>;
export type InvitationRow = Awaited<ReturnType<ControlPrismaClient['workspaceInvitation']['findUniqueOrThrow']>>;
export type NotificationRow = Awaited<ReturnType<ControlPrismaClient['notification']['findUniqueOrThrow']>>;

export const controlDbProvider = {
  provide: WORKSPACES_DB,
  useFactory: (database: Database | null): ControlDb => {
    if (!database) throw new Error('The workspaces component needs the control-plane database');
    return createPrismaClient('control', database.pool);
  },
  inject: [DATABASE],
};

/** Disconnects the client after the transport drained (the pool itself belongs to the runtime). */
@Injectable()
export class ControlDbCloser implements OnApplicationShutdown {
  constructor(@Inject(WORKSPACES_DB) private readonly db: ControlDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect().catch(() => undefined);
  }
}

const workspacesTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."workspaces"`);

/**
 * Locks the workspace row until the transaction ends, so membership changes that check
 * "is there another owner?" cannot interleave (two owners demoting each other at once).
 */
export async function lockWorkspace(tx: ControlTx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM ${workspacesTable} WHERE id = ${workspaceId}::uuid FOR UPDATE`;
}
