import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { WorkspacesService, type InvitationSchema } from '@kw/contracts';
import { INVITATION_ROLES, isInvitationRole } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { badRequest } from '@kw/platform-errors';
import { AccountLimits, LimitNotices, planLimitReached } from '@kw/platform-entitlements';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { EMAIL_MAX, INVITATION_TTL_DAYS } from '../workspaces-limits.js';
import { AccessChanges } from './access-changes.js';
import { assertAccount, tokenReaches } from './caller.js';
import { InvitationsRepository, type InvitationRefusal } from '../persistence/invitations.repository.js';
import { MembersRepository } from '../persistence/members.repository.js';
import type { InvitationRow } from '../persistence/rows.js';
import { IdentityDirectory } from './identity-directory.js';
import { isUuid } from '@kw/platform-ids';
import { NotificationKind } from './notifications.js';
import {
  alreadyMember,
  invalidRole,
  invitationExpired,
  invitationNotFound,
  invitationPending,
} from './workspace-errors.js';
import { relationFrom, WorkspaceAccess } from './workspace-access.js';
import { iso, workspaceView } from './workspace-view.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function invitationView(row: InvitationRow, workspaceName: string): MessageInitShape<typeof InvitationSchema> {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    workspaceName,
    email: row.email,
    role: row.role,
    invitedBy: row.invitedBy,
    status: row.status,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
  };
}

/**
 * Invitations: owners invite by email with a non-owner role; the account with that email
 * sees the invitation (and a notification) and accepts it to become a member.
 */
@Injectable()
export class InvitationsHandlers {
  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly access: WorkspaceAccess,
    private readonly identity: IdentityDirectory,
    private readonly changes: AccessChanges,
    private readonly members: MembersRepository,
    private readonly limits: AccountLimits,
    private readonly notices: LimitNotices,
  ) {}

  @Handles(WorkspacesService.method.inviteMember)
  async invite(input: RequestOf<typeof WorkspacesService, 'inviteMember'>, context: RequestContext) {
    const { workspace, userId } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isInvitationRole(input.role)) throw invalidRole(input.role, INVITATION_ROLES);
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > EMAIL_MAX) throw badRequest('email must be an email address');
    // Looked up before the transaction: the identity service needs the (embedded) connection.
    const invitee = await this.identity.findByEmail(email);
    const seats = await this.limits.limitOf(workspace.createdBy, 'membersPerWorkspace');
    const now = new Date();
    const invitation = await this.invitations.invite(
      {
        workspaceId: workspace.id,
        email,
        role: input.role,
        invitedBy: userId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
      },
      now,
      invitee && {
        userId: invitee.id,
        kind: NotificationKind.WORKSPACE_INVITATION,
        payload: (created) => ({
          invitationId: created.id,
          workspaceId: workspace.id,
          workspaceName: workspace.name,
          role: created.role,
          invitedBy: userId,
        }),
      },
      seats?.max,
    );
    if (invitation === 'seats_full') throw planLimitReached('membersPerWorkspace', seats!.max, seats!.planId);
    if (typeof invitation === 'string') throw refusal(invitation);
    return { invitation: invitationView(invitation, workspace.name) };
  }

  @Handles(WorkspacesService.method.listWorkspaceInvitations)
  async listForWorkspace(
    input: RequestOf<typeof WorkspacesService, 'listWorkspaceInvitations'>,
    context: RequestContext,
  ) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:read');
    const rows = await this.invitations.listLive(workspace.id, new Date());
    return { invitations: rows.map((r) => invitationView(r, workspace.name)) };
  }

  @Handles(WorkspacesService.method.revokeInvitation)
  async revoke(input: RequestOf<typeof WorkspacesService, 'revokeInvitation'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isUuid(input.invitationId)) throw invitationNotFound();
    const found = await this.invitations.findPending(input.invitationId, workspace.id);
    if (!found) throw invitationNotFound();
    const revoked = await this.invitations.settle(found.id, 'revoked');
    if (!revoked) throw invitationNotFound();
    return { invitation: invitationView(revoked, workspace.name) };
  }

  @Handles(WorkspacesService.method.listMyInvitations)
  async listMine(_input: RequestOf<typeof WorkspacesService, 'listMyInvitations'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const email = await this.identity.emailOf(userId);
    if (!email) return { invitations: [] };
    const rows = await this.invitations.listLiveForEmail(email, new Date());
    return {
      invitations: rows
        .filter((r) => tokenReaches(auth, r.workspaceId))
        .map(({ workspace, ...r }) => invitationView(r, workspace.name)),
    };
  }

  /**
   * Only the account the invitation was addressed to may accept it; to anybody else it does
   * not exist (404). Accepting adds a workspace to the account, like creating one, so it
   * needs `workspaces:write`.
   */
  @Handles(WorkspacesService.method.acceptInvitation)
  async accept(input: RequestOf<typeof WorkspacesService, 'acceptInvitation'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:write');
    if (!isUuid(input.invitationId)) throw invitationNotFound();
    const email = await this.identity.emailOf(userId);
    const found = await this.invitations.findWithWorkspace(input.invitationId);
    if (
      !found ||
      !email ||
      found.email !== email ||
      (found.status !== 'pending' && found.status !== 'expired') ||
      found.workspace.archivedAt !== null ||
      !tokenReaches(auth, found.workspaceId)
    ) {
      throw invitationNotFound();
    }
    const { workspace, ...invitation } = found;
    const now = new Date();
    // Expired stays expired on every accept, whoever marked it so (an earlier accept, or a new
    // invitation to the workspace): "ask for a new one", never "not found".
    if (invitation.status === 'expired') throw invitationExpired();
    if (invitation.expiresAt <= now) {
      // Only a pending one becomes expired: one revoked or accepted meanwhile is gone (404).
      const settled =
        (await this.invitations.settle(invitation.id, 'expired')) ??
        (await this.invitations.findWithWorkspace(invitation.id));
      if (settled?.status !== 'expired') throw invitationNotFound();
      throw invitationExpired();
    }
    const seats = await this.limits.limitOf(workspace.createdBy, 'membersPerWorkspace');
    const accepted = await this.invitations.accept(
      invitation,
      userId,
      now,
      NotificationKind.WORKSPACE_INVITATION,
      seats?.max,
    );
    if (accepted === 'seats_full') throw planLimitReached('membersPerWorkspace', seats!.max, seats!.planId);
    if (typeof accepted === 'string') throw refusal(accepted);
    this.changes.workspace(workspace.id);
    if (seats)
      await this.notices.observe(workspace.id, 'membersPerWorkspace', await this.members.count(workspace.id), seats);
    return {
      workspace: workspaceView(workspace, relationFrom(accepted.role, false)),
      invitation: invitationView(accepted, workspace.name),
    };
  }
}

/** Nothing was written: the invitee is a member already, or has a live invitation. */
function refusal(reason: Exclude<InvitationRefusal, 'seats_full'>): Error {
  if (reason === 'gone') return invitationNotFound();
  return reason === 'pending' ? invitationPending() : alreadyMember();
}
