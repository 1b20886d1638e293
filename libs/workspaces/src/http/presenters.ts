import type {
  IssueHandoffResponse,
  HandoffRevocation,
  WorkspaceMove,
  HostedZone,
  Invitation,
  Member,
  Notification,
  Placement,
  Workspace,
  WorkspaceSettings,
} from '@kw/contracts';
import { isWorkspaceRole } from '@kw/platform-access-policy';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { HandoffResponseDto, HandoffRevocationDto, HostedZoneDto, PlacementDto } from './dto/hosted-zones.dto.js';
import type { WorkspaceMoveDto } from './dto/moves.dto.js';
import type { InvitationDto, MemberDto } from './dto/members.dto.js';
import type { NotificationDto } from './dto/notifications.dto.js';
import type { WorkspaceSettingsDto } from './dto/settings.dto.js';
import type { WorkspaceDto } from './dto/workspace.dto.js';

/** The contract's "empty means none" strings become JSON nulls. */
const orNull = (value: string): string | null => value || null;

/** A field every answer of the service carries; its absence is a broken contract, not a client error. */
function required<T>(value: T | undefined, what: string): T {
  if (value === undefined)
    throw new AppError({
      status: 500,
      code: ErrorCode.INTERNAL_ERROR,
      message: `The workspaces service answered without ${what}`,
    });
  return value;
}

export function workspaceJson(message: Workspace | undefined): WorkspaceDto {
  const w = required(message, 'a workspace');
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    visibility: w.visibility,
    status: w.status,
    hostedZoneId: orNull(w.hostedZoneId),
    endpointUrl: orNull(w.endpointUrl),
    createdBy: w.createdBy,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    archivedAt: orNull(w.archivedAt),
    relation: w.relation,
    role: isWorkspaceRole(w.relation) ? w.relation : null,
  };
}

export function settingsJson(message: WorkspaceSettings | undefined): WorkspaceSettingsDto {
  const s = required(message, 'settings');
  return {
    defaultFragmentTypeId: orNull(s.defaultFragmentTypeId),
    enrichment: { summaries: s.enrichment?.summaries ?? false, tags: s.enrichment?.tags ?? false },
    allowPublicSubscriptions: s.allowPublicSubscriptions,
  };
}

export function memberJson(message: Member | undefined): MemberDto {
  const m = required(message, 'a member');
  return { userId: m.userId, email: m.email, displayName: m.displayName, role: m.role, joinedAt: m.joinedAt };
}

export function invitationJson(message: Invitation | undefined): InvitationDto {
  const i = required(message, 'an invitation');
  return {
    id: i.id,
    workspaceId: i.workspaceId,
    workspaceName: i.workspaceName,
    email: i.email,
    role: i.role,
    invitedBy: i.invitedBy,
    status: i.status,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
  };
}

export function notificationJson(message: Notification | undefined): NotificationDto {
  const n = required(message, 'a notification');
  return {
    id: n.id,
    kind: n.kind,
    payload: JSON.parse(n.payloadJson || '{}') as Record<string, unknown>,
    createdAt: n.createdAt,
    readAt: orNull(n.readAt),
  };
}

export function hostedZoneJson(message: HostedZone | undefined): HostedZoneDto {
  const z = required(message, 'a hosted zone');
  return {
    id: z.id,
    name: z.name,
    region: z.region,
    endpointUrl: orNull(z.endpointUrl),
    status: z.status,
    ownerId: z.ownerId,
    enrolledAt: orNull(z.enrolledAt),
    lastHeartbeatAt: orNull(z.lastHeartbeatAt),
    leafVersion: orNull(z.leafVersion),
    workspaceCount: z.workspaceCount,
    createdAt: z.createdAt,
    updatedAt: z.updatedAt,
  };
}

export function placementJson(message: Placement | undefined): PlacementDto {
  const p = required(message, 'a placement');
  return { workspaceId: p.workspaceId, name: p.name, status: p.status };
}

export function revocationJson(r: HandoffRevocation): HandoffRevocationDto {
  return {
    userId: orNull(r.userId),
    workspaceId: orNull(r.workspaceId),
    credentialId: orNull(r.credentialId),
    revokedAt: r.revokedAt,
  };
}

export function handoffJson(message: IssueHandoffResponse | undefined): HandoffResponseDto {
  const h = required(message, 'a handoff');
  return {
    success: true,
    token: h.token,
    tokenType: 'Bearer',
    expiresAt: h.expiresAt,
    expiresIn: h.expiresIn,
    hostedZoneId: h.hostedZoneId,
    endpointUrl: orNull(h.endpointUrl),
    audience: h.audience,
    actions: h.actions,
    workspaceId: h.workspaceId,
  };
}

export function moveJson(message: WorkspaceMove | undefined): WorkspaceMoveDto {
  const m = required(message, 'a move');
  return {
    id: m.id,
    workspaceId: m.workspaceId,
    fromHostedZoneId: orNull(m.fromHostedZoneId),
    toHostedZoneId: orNull(m.toHostedZoneId),
    status: m.status,
    leaveFilesBehind: m.leaveFilesBehind,
    sourceEndpointUrl: orNull(m.sourceEndpointUrl),
    targetEndpointUrl: orNull(m.targetEndpointUrl),
    leftoverRemoved: m.leftoverRemoved,
    createdBy: m.createdBy,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    completedAt: orNull(m.completedAt),
  };
}

export const list = <T>(items: T[]) => ({ items, count: items.length });
