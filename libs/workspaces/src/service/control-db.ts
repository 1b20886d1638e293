import {
  ControlPrisma,
  prismaClientProviders,
  PLANE_SCHEMAS,
  type ControlPrismaClient,
} from '@kw/platform-persistence';

/** The component's one Prisma client of the control plane (one per module: PGlite has one connection). */
export const WORKSPACES_DB = Symbol('WORKSPACES_DB');
export const controlDbProviders = prismaClientProviders(WORKSPACES_DB, 'control', 'workspaces');
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

const workspacesTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."workspaces"`);

/**
 * Locks the workspace row until the transaction ends, so membership changes that check
 * "is there another owner?" cannot interleave (two owners demoting each other at once).
 */
export async function lockWorkspace(tx: ControlTx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM ${workspacesTable} WHERE id = ${workspaceId}::uuid FOR UPDATE`;
}
