import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { WorkspacesService, type InvitationSchema } from '@kw/contracts';
import { INVITATION_ROLES, isInvitationRole } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { badRequest } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { EMAIL_MAX, INVITATION_TTL_DAYS } from '../workspace-limits.js';
import { AccessChanges } from './access-changes.js';
import { assertAccount, tokenReaches } from './caller.js';
import { lockWorkspace, WORKSPACES_DB, type ControlDb, type InvitationRow } from './control-db.js';
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
import { iso, workspaceView, ZONE_ENDPOINT } from './workspace-view.js';

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

/** A pending invitation that can still be accepted. */
const live = (now: Date) => ({ status: 'pending', expiresAt: { gt: now } });

/**
 * Invitations: owners invite by email with a non-owner role; the account with that email
 * sees the invitation (and a notification) and accepts it to become a member.
 */
@Injectable()
export class InvitationHandlers {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: ControlDb,
    private readonly access: WorkspaceAccess,
    private readonly identity: IdentityDirectory,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(WorkspacesService.method.inviteMember)
  async invite(input: RequestOf<typeof WorkspacesService, 'inviteMember'>, context: RequestContext) {
    const { workspace, userId } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isInvitationRole(input.role)) throw invalidRole(input.role, INVITATION_ROLES);
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > EMAIL_MAX) throw badRequest('email must be an email address');
    // Looked up before the transaction: the identity service needs the (embedded) connection.
    const invitee = await this.identity.findByEmail(email);
    const now = new Date();
    const invitation = await this.db.$transaction(async (tx) => {
      await lockWorkspace(tx, workspace.id);
      if (
        invitee &&
        (await tx.workspaceMember.findUnique({
          where: { workspaceId_userId: { workspaceId: workspace.id, userId: invitee.id } },
        }))
      ) {
        throw alreadyMember();
      }
      await tx.workspaceInvitation.updateMany({
        where: { workspaceId: workspace.id, status: 'pending', expiresAt: { lte: now } },
        data: { status: 'expired' },
      });
      if (await tx.workspaceInvitation.findFirst({ where: { workspaceId: workspace.id, email, ...live(now) } }))
        throw invitationPending();
      const created = await tx.workspaceInvitation.create({
        data: {
          workspaceId: workspace.id,
          email,
          role: input.role,
          invitedBy: userId,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
        },
      });
      if (invitee) {
        await tx.notification.create({
          data: {
            userId: invitee.id,
            kind: NotificationKind.WORKSPACE_INVITATION,
            payload: {
              invitationId: created.id,
              workspaceId: workspace.id,
              workspaceName: workspace.name,
              role: created.role,
              invitedBy: userId,
            },
          },
        });
      }
      return created;
    });
    return { invitation: invitationView(invitation, workspace.name) };
  }

  @Handles(WorkspacesService.method.listWorkspaceInvitations)
  async listForWorkspace(
    input: RequestOf<typeof WorkspacesService, 'listWorkspaceInvitations'>,
    context: RequestContext,
  ) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:read');
    const rows = await this.db.workspaceInvitation.findMany({
      where: { workspaceId: workspace.id, ...live(new Date()) },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
    return { invitations: rows.map((r) => invitationView(r, workspace.name)) };
  }

  @Handles(WorkspacesService.method.revokeInvitation)
  async revoke(input: RequestOf<typeof WorkspacesService, 'revokeInvitation'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isUuid(input.invitationId)) throw invitationNotFound();
    const found = await this.db.workspaceInvitation.findFirst({
      where: { id: input.invitationId, workspaceId: workspace.id, status: 'pending' },
    });
    if (!found) throw invitationNotFound();
    const revoked = await this.db.workspaceInvitation.update({ where: { id: found.id }, data: { status: 'revoked' } });
    return { invitation: invitationView(revoked, workspace.name) };
  }

  @Handles(WorkspacesService.method.listMyInvitations)
  async listMine(_input: RequestOf<typeof WorkspacesService, 'listMyInvitations'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const email = await this.identity.emailOf(userId);
    if (!email) return { invitations: [] };
    const rows = await this.db.workspaceInvitation.findMany({
      where: { email, ...live(new Date()), workspace: { archivedAt: null } },
      include: { workspace: { select: { name: true } } },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
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
    const found = await this.db.workspaceInvitation.findUnique({
      where: { id: input.invitationId },
      include: { workspace: { include: ZONE_ENDPOINT } },
    });
    if (
      !found ||
      !email ||
      found.email !== email ||
      found.status !== 'pending' ||
      found.workspace.archivedAt !== null ||
      !tokenReaches(auth, found.workspaceId)
    ) {
      throw invitationNotFound();
    }
    const { workspace, ...invitation } = found;
    const now = new Date();
    if (invitation.expiresAt <= now) {
      await this.db.workspaceInvitation.update({ where: { id: invitation.id }, data: { status: 'expired' } });
      throw invitationExpired();
    }
    const accepted = await this.db.$transaction(async (tx) => {
      await lockWorkspace(tx, workspace.id);
      if (await tx.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId } } }))
        throw alreadyMember();
      await tx.workspaceMember.create({ data: { workspaceId: workspace.id, userId, role: invitation.role } });
      // A member no longer needs the subscription; keeping it would outlive a later removal.
      await tx.workspaceSubscription.deleteMany({ where: { workspaceId: workspace.id, userId } });
      await tx.notification.updateMany({
        where: {
          userId,
          kind: NotificationKind.WORKSPACE_INVITATION,
          readAt: null,
          payload: { path: ['invitationId'], equals: invitation.id },
        },
        data: { readAt: now },
      });
      return tx.workspaceInvitation.update({
        where: { id: invitation.id },
        data: { status: 'accepted', acceptedAt: now },
      });
    });
    this.changes.workspace(workspace.id);
    return {
      workspace: workspaceView(workspace, relationFrom(accepted.role, false)),
      invitation: invitationView(accepted, workspace.name),
    };
  }
}
