import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { WorkspacesService, type MemberSchema, type User } from '@kw/contracts';
import { denialError, isWorkspaceRole, WORKSPACE_ROLES } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from './access-changes.js';
import { lockWorkspace, WORKSPACES_DB, type ControlDb, type ControlTx, type MemberRow } from './control-db.js';
import { IdentityDirectory } from './identity-directory.js';
import { isUuid } from '@kw/platform-ids';
import { invalidRole, lastOwner, memberNotFound } from './workspace-errors.js';
import { WorkspaceAccess } from './workspace-access.js';
import { iso } from './workspace-view.js';

export function memberView(row: MemberRow, user: User | undefined): MessageInitShape<typeof MemberSchema> {
  return {
    userId: row.userId,
    email: user?.email ?? '',
    displayName: user?.displayName ?? '',
    role: row.role,
    joinedAt: iso(row.createdAt),
  };
}

/** Members of a workspace: listed by members, re-roled and removed by owners; anyone may leave. */
@Injectable()
export class MemberHandlers {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: ControlDb,
    private readonly access: WorkspaceAccess,
    private readonly identity: IdentityDirectory,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(WorkspacesService.method.listMembers)
  async list(input: RequestOf<typeof WorkspacesService, 'listMembers'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:read');
    const rows = await this.db.workspaceMember.findMany({
      where: { workspaceId: workspace.id },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
    const users = await this.identity.usersById(rows.map((r) => r.userId));
    return { members: rows.map((r) => memberView(r, users.get(r.userId))) };
  }

  @Handles(WorkspacesService.method.updateMemberRole)
  async updateRole(input: RequestOf<typeof WorkspacesService, 'updateMemberRole'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isWorkspaceRole(input.role)) throw invalidRole(input.role, WORKSPACE_ROLES);
    if (!isUuid(input.userId)) throw memberNotFound();
    const role = input.role;
    const updated = await this.db.$transaction(async (tx) => {
      const member = await this.lockedMember(tx, workspace.id, input.userId);
      if (member.role === 'owner' && role !== 'owner') await assertAnotherOwner(tx, workspace.id);
      return tx.workspaceMember.update({
        where: { workspaceId_userId: { workspaceId: workspace.id, userId: member.userId } },
        data: { role },
      });
    });
    this.changes.workspace(workspace.id);
    const users = await this.identity.usersById([updated.userId]);
    return { member: memberView(updated, users.get(updated.userId)) };
  }

  @Handles(WorkspacesService.method.removeMember)
  async remove(input: RequestOf<typeof WorkspacesService, 'removeMember'>, context: RequestContext) {
    const leaving = context.auth?.userId !== undefined && context.auth.userId === input.userId;
    const workspaceId = leaving
      ? await this.authorizeLeave(context, input.workspaceId)
      : (await this.access.authorize(context, input.workspaceId, 'members:manage')).workspace.id;
    if (!isUuid(input.userId)) throw memberNotFound();
    await this.db.$transaction(async (tx) => {
      const member = await this.lockedMember(tx, workspaceId, input.userId);
      if (member.role === 'owner') await assertAnotherOwner(tx, workspaceId);
      await tx.workspaceMember.delete({ where: { workspaceId_userId: { workspaceId, userId: member.userId } } });
    });
    this.changes.workspace(workspaceId);
    return {};
  }

  /**
   * Leaving is removing oneself: the token needs `members:manage` and must reach the
   * workspace like any other call, but no role is required (a viewer may leave).
   */
  private async authorizeLeave(context: RequestContext, workspaceId: string): Promise<string> {
    const { decision, workspace, relation } = await this.access.decision(context, workspaceId, 'members:manage');
    if (!decision.allowed && decision.reason !== 'role_insufficient') throw denialError(decision);
    if (!isWorkspaceRole(relation)) throw memberNotFound();
    return workspace!.id;
  }

  private async lockedMember(tx: ControlTx, workspaceId: string, userId: string): Promise<MemberRow> {
    await lockWorkspace(tx, workspaceId);
    const member = await tx.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } });
    if (!member) throw memberNotFound();
    return member;
  }
}

/** Refuses to take away the last owner (the workspace row is locked by the caller). */
async function assertAnotherOwner(tx: ControlTx, workspaceId: string): Promise<void> {
  const owners = await tx.workspaceMember.count({ where: { workspaceId, role: 'owner' } });
  if (owners <= 1) throw lastOwner();
}
