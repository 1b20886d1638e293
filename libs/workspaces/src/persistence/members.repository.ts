import { Inject, Injectable } from '@nestjs/common';
import { recordWorkspaceRevocation } from './handoff-revocations.repository.js';
import type { MemberRow } from './rows.js';
import { lockWorkspace, refusing, WORKSPACES_DB, type WorkspacesDb, type WorkspacesTx } from './workspaces-database.js';

/** Why a membership change was refused (nothing was written). */
export type MembershipRefusal = 'not_member' | 'last_owner';

/** Workspace members. Changes that could take away the last owner lock the workspace row first. */
@Injectable()
export class MembersRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  listForWorkspace(workspaceId: string): Promise<MemberRow[]> {
    return this.db.workspaceMember.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
  }

  count(workspaceId: string): Promise<number> {
    return this.db.workspaceMember.count({ where: { workspaceId } });
  }

  /** The user ids of a workspace's owners. */
  async ownerIds(workspaceId: string): Promise<string[]> {
    const owners = await this.db.workspaceMember.findMany({
      where: { workspaceId, role: 'owner' },
      select: { userId: true },
    });
    return owners.map((o) => o.userId);
  }

  /**
   * Changes a member's role; an owner stops being one only while another owner remains. A
   * different role revokes the member's handoff tokens (they carry the old role).
   */
  changeRole(workspaceId: string, userId: string, role: string): Promise<MemberRow | MembershipRefusal> {
    return refusing<MemberRow, MembershipRefusal>(this.db, async (tx, refuse) => {
      const member = await lockedMember(tx, workspaceId, userId);
      if (!member) return refuse('not_member');
      if (member.role === 'owner' && role !== 'owner' && !(await anotherOwner(tx, workspaceId))) refuse('last_owner');
      if (member.role !== role) await recordWorkspaceRevocation(tx, workspaceId, member.userId, new Date());
      return tx.workspaceMember.update({
        where: { workspaceId_userId: { workspaceId, userId: member.userId } },
        data: { role },
      });
    });
  }

  /** Removes a member (and revokes their handoff tokens); an owner only while another owner remains. */
  async remove(workspaceId: string, userId: string): Promise<MembershipRefusal | undefined> {
    return refusing<undefined, MembershipRefusal>(this.db, async (tx, refuse) => {
      const member = await lockedMember(tx, workspaceId, userId);
      if (!member) return refuse('not_member');
      if (member.role === 'owner' && !(await anotherOwner(tx, workspaceId))) refuse('last_owner');
      await tx.workspaceMember.delete({ where: { workspaceId_userId: { workspaceId, userId: member.userId } } });
      await recordWorkspaceRevocation(tx, workspaceId, member.userId, new Date());
      return undefined;
    });
  }
}

async function lockedMember(tx: WorkspacesTx, workspaceId: string, userId: string): Promise<MemberRow | null> {
  await lockWorkspace(tx, workspaceId);
  return tx.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } });
}

/** Whether the workspace has another owner besides the one being changed (the row is locked by the caller). */
async function anotherOwner(tx: WorkspacesTx, workspaceId: string): Promise<boolean> {
  const owners = await tx.workspaceMember.count({ where: { workspaceId, role: 'owner' } });
  return owners > 1;
}
