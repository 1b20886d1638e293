import type { WorkspacesDb } from './workspaces-database.js';

/** A workspace row; `hostedZone` is there when the query included ZONE_ENDPOINT. */
export type WorkspaceRow = Awaited<ReturnType<WorkspacesDb['workspace']['findUniqueOrThrow']>> & {
  hostedZone?: { endpointUrl: string | null } | null;
};
export type MemberRow = Awaited<ReturnType<WorkspacesDb['workspaceMember']['findUniqueOrThrow']>>;
export type InvitationRow = Awaited<ReturnType<WorkspacesDb['workspaceInvitation']['findUniqueOrThrow']>>;
export type NotificationRow = Awaited<ReturnType<WorkspacesDb['notification']['findUniqueOrThrow']>>;
export type HostedZoneRow = Awaited<ReturnType<WorkspacesDb['hostedZone']['findUniqueOrThrow']>>;

/** Include this in workspace queries whose rows become WorkspaceMessages: endpointUrl comes from the zone. */
export const ZONE_ENDPOINT = { hostedZone: { select: { endpointUrl: true } } } as const;
