import { Inject, Injectable } from '@nestjs/common';
import { ZONE_ENDPOINT, type InvitationRow } from './rows.js';
import { lockWorkspace, refusing, WORKSPACES_DB, type WorkspacesDb, type WorkspacesTx } from './workspaces-database.js';

/**
 * Why an invitation could not be created or accepted (nothing was written). seats_full: the
 * plan's members per workspace, live invitations counting as seats (docs/plans.md). gone: the
 * invitation stopped being pending meanwhile (a revoke, an expiry or another accept won the race).
 */
export type InvitationRefusal = 'already_member' | 'pending' | 'seats_full' | 'gone';

export interface NewInvitation {
  workspaceId: string;
  email: string;
  role: string;
  invitedBy: string;
  expiresAt: Date;
}

/** The notification that tells the invitee (when the email belongs to an account). */
export interface InviteeNotification {
  userId: string;
  kind: string;
  payload: (invitation: InvitationRow) => object;
}

/** A pending invitation that can still be accepted. */
const live = (now: Date) => ({ status: 'pending', expiresAt: { gt: now } });

/** Invitations to workspaces, addressed by email. */
@Injectable()
export class InvitationsRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  /**
   * In one transaction with the workspace row locked: refuses an invitee who is already a
   * member, marks the workspace's lapsed invitations expired, refuses a second live
   * invitation for the email, creates the invitation and the invitee's notification.
   */
  invite(
    invitation: NewInvitation,
    now: Date,
    notification: InviteeNotification | undefined,
    maxSeats?: number,
  ): Promise<InvitationRow | InvitationRefusal> {
    const { workspaceId, email } = invitation;
    return refusing<InvitationRow, InvitationRefusal>(this.db, async (tx, refuse) => {
      await lockWorkspace(tx, workspaceId);
      if (
        notification &&
        (await tx.workspaceMember.findUnique({
          where: { workspaceId_userId: { workspaceId, userId: notification.userId } },
        }))
      ) {
        return refuse('already_member');
      }
      await tx.workspaceInvitation.updateMany({
        where: { workspaceId, status: 'pending', expiresAt: { lte: now } },
        data: { status: 'expired' },
      });
      if (await tx.workspaceInvitation.findFirst({ where: { workspaceId, email, ...live(now) } }))
        return refuse('pending');
      if (maxSeats !== undefined && (await seatsTaken(tx, workspaceId, now)) >= maxSeats) return refuse('seats_full');
      const created = await tx.workspaceInvitation.create({ data: invitation });
      if (notification) {
        await tx.notification.create({
          data: { userId: notification.userId, kind: notification.kind, payload: notification.payload(created) },
        });
      }
      return created;
    });
  }

  /** A workspace's live invitations, newest first. */
  listLive(workspaceId: string, now: Date): Promise<InvitationRow[]> {
    return this.db.workspaceInvitation.findMany({
      where: { workspaceId, ...live(now) },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  /** Live invitations to an email in unarchived workspaces, newest first, with the workspace's name. */
  listLiveForEmail(email: string, now: Date) {
    return this.db.workspaceInvitation.findMany({
      where: { email, ...live(now), workspace: { archivedAt: null } },
      include: { workspace: { select: { name: true } } },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  findPending(id: string, workspaceId: string): Promise<InvitationRow | null> {
    return this.db.workspaceInvitation.findFirst({ where: { id, workspaceId, status: 'pending' } });
  }

  /** The invitation with its workspace (and the zone's endpoint). */
  findWithWorkspace(id: string) {
    return this.db.workspaceInvitation.findUnique({
      where: { id },
      include: { workspace: { include: ZONE_ENDPOINT } },
    });
  }

  /**
   * Moves a pending invitation to `status` in one conditional statement; null when it is no
   * longer pending (an accept or another revoke won the race), and then nothing is written.
   */
  async settle(id: string, status: 'revoked' | 'expired'): Promise<InvitationRow | null> {
    const { count } = await this.db.workspaceInvitation.updateMany({
      where: { id, status: 'pending' },
      data: { status },
    });
    return count === 1 ? this.db.workspaceInvitation.findUnique({ where: { id } }) : null;
  }

  /**
   * In one transaction with the workspace row locked: claims the invitation (pending to
   * accepted, one conditional statement, so a revoke racing it either lands first and the
   * accept is refused as gone, or waits and finds it no longer pending), refuses a user who is
   * already a member, adds the membership, drops the user's subscription (a member no longer needs it;
   * keeping it would outlive a later removal), marks the invitation's notification read and
   * the invitation accepted.
   */
  accept(
    invitation: Pick<InvitationRow, 'id' | 'workspaceId' | 'role'>,
    userId: string,
    now: Date,
    notificationKind: string,
    maxMembers?: number,
  ): Promise<InvitationRow | InvitationRefusal> {
    const { workspaceId } = invitation;
    return refusing<InvitationRow, InvitationRefusal>(this.db, async (tx, refuse) => {
      await lockWorkspace(tx, workspaceId);
      const claimed = await tx.workspaceInvitation.updateMany({
        where: { id: invitation.id, status: 'pending' },
        data: { status: 'accepted', acceptedAt: now },
      });
      if (claimed.count !== 1) return refuse('gone');
      if (await tx.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } }))
        return refuse('already_member');
      if (maxMembers !== undefined && (await tx.workspaceMember.count({ where: { workspaceId } })) >= maxMembers)
        return refuse('seats_full');
      await tx.workspaceMember.create({ data: { workspaceId, userId, role: invitation.role } });
      await tx.workspaceSubscription.deleteMany({ where: { workspaceId, userId } });
      await tx.notification.updateMany({
        where: {
          userId,
          kind: notificationKind,
          readAt: null,
          payload: { path: ['invitationId'], equals: invitation.id },
        },
        data: { readAt: now },
      });
      return tx.workspaceInvitation.findUniqueOrThrow({ where: { id: invitation.id } });
    });
  }
}

/** Members plus live invitations: an invitation holds a seat until it is accepted, revoked or expires. */
async function seatsTaken(tx: WorkspacesTx, workspaceId: string, now: Date): Promise<number> {
  const members = await tx.workspaceMember.count({ where: { workspaceId } });
  return members + (await tx.workspaceInvitation.count({ where: { workspaceId, ...live(now) } }));
}
