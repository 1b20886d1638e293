import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { WorkspacesService, type MemberSchema, type User } from '@kw/contracts';
import { denialError, isWorkspaceRole, WORKSPACE_ROLES } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from './access-changes.js';
import { MembersRepository, type MembershipRefusal } from '../persistence/members.repository.js';
import type { MemberRow } from '../persistence/rows.js';
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
export class MembersHandlers {
  constructor(
    private readonly members: MembersRepository,
    private readonly access: WorkspaceAccess,
    private readonly identity: IdentityDirectory,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(WorkspacesService.method.listMembers)
  async list(input: RequestOf<typeof WorkspacesService, 'listMembers'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:read');
    const rows = await this.members.listForWorkspace(workspace.id);
    const users = await this.identity.usersById(rows.map((r) => r.userId));
    return { members: rows.map((r) => memberView(r, users.get(r.userId))) };
  }

  @Handles(WorkspacesService.method.updateMemberRole)
  async updateRole(input: RequestOf<typeof WorkspacesService, 'updateMemberRole'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'members:manage');
    if (!isWorkspaceRole(input.role)) throw invalidRole(input.role, WORKSPACE_ROLES);
    if (!isUuid(input.userId)) throw memberNotFound();
    const role = input.role;
    const updated = await this.members.changeRole(workspace.id, input.userId, role);
    if (typeof updated === 'string') throw refusal(updated);
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
    const refused = await this.members.remove(workspaceId, input.userId);
    if (refused) throw refusal(refused);
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
}

/** Nothing was changed: the user is not a member, or the last owner would go. */
function refusal(reason: MembershipRefusal): Error {
  return reason === 'last_owner' ? lastOwner() : memberNotFound();
}
