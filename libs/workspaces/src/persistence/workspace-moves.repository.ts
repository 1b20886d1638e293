import { Inject, Injectable } from '@nestjs/common';
import { lockWorkspace, refusing, WORKSPACES_DB, type WorkspacesDb, type WorkspacesTx } from './workspaces-database.js';

export type MoveRow = Awaited<ReturnType<WorkspacesDb['workspaceMove']['findUniqueOrThrow']>>;

export const UNFINISHED = ['preparing', 'copying'];

/** Why a move could not begin (the service turns it into its error). */
export type StartRefusal =
  | { refused: 'gone' }
  | { refused: 'zone-gone' }
  | { refused: 'not-active'; status: string }
  | { refused: 'moving'; moveId: string }
  | { refused: 'leftover'; moveId: string };

export interface NewMove {
  workspaceId: string;
  fromZoneId: string | null;
  toZoneId: string | null;
  leaveFilesBehind: boolean;
  createdBy: string;
}

/**
 * Moves of workspaces between planes (control.workspace_moves) and the workspace status they
 * set: every change of a move and of its workspace happens in one transaction with the
 * workspace's row locked, so two moves of one workspace cannot begin or end together.
 */
@Injectable()
export class WorkspaceMovesRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  /**
   * Begins a move: the workspace becomes "moving" (read-only). A Cloud source is read-only at
   * once, a Cloud target ready at once; a Leaf says so through its heartbeats.
   */
  start(move: NewMove): Promise<MoveRow | StartRefusal> {
    return refusing<MoveRow, StartRefusal>(this.db, async (tx, refuse) => {
      // The target zone's row is held until the move exists, so a zone deleted meanwhile is
      // refused here, and a delete waiting on it sees the move (deleteWithArchivedWorkspaces).
      // Zone before workspace, the order the delete locks them in.
      if (move.toZoneId && !(await lockZoneShared(tx, move.toZoneId))) return refuse({ refused: 'zone-gone' });
      await lockWorkspace(tx, move.workspaceId);
      const workspace = await tx.workspace.findUnique({ where: { id: move.workspaceId } });
      if (!workspace || workspace.archivedAt) return refuse({ refused: 'gone' });
      const unfinished = await tx.workspaceMove.findFirst({
        where: { workspaceId: move.workspaceId, status: { in: UNFINISHED } },
      });
      if (unfinished) return refuse({ refused: 'moving', moveId: unfinished.id });
      if (workspace.status !== 'active') return refuse({ refused: 'not-active', status: workspace.status });
      // A copy still being removed from the target plane would collide with the new one.
      const leftovers = await tx.workspaceMove.findMany({
        where: { workspaceId: move.workspaceId, status: { in: ['done', 'aborted'] }, leftoverRemovedAt: null },
      });
      const leftover = leftovers.find((m) => (m.status === 'done' ? m.fromZoneId : m.toZoneId) === move.toZoneId);
      if (leftover) return refuse({ refused: 'leftover', moveId: leftover.id });
      const now = new Date();
      await tx.workspace.update({ where: { id: move.workspaceId }, data: { status: 'moving' } });
      const created = await tx.workspaceMove.create({
        data: {
          ...move,
          sourceFrozenAt: move.fromZoneId ? null : now,
          targetReadyAt: move.toZoneId ? null : now,
        },
      });
      return (await promote(tx, created.id)) ?? created;
    });
  }

  find(id: string, workspaceId: string): Promise<MoveRow | null> {
    return this.db.workspaceMove.findFirst({ where: { id, workspaceId } });
  }

  /** The workspace's move that has not ended, if any. */
  unfinished(workspaceId: string): Promise<MoveRow | null> {
    return this.db.workspaceMove.findFirst({ where: { workspaceId, status: { in: UNFINISHED } } });
  }

  /** Workspaces moving to the zone that its Leaf has not provisioned yet (placements to make). */
  async pendingTargets(zoneId: string): Promise<Array<{ id: string; name: string }>> {
    const moves = await this.db.workspaceMove.findMany({
      where: { toZoneId: zoneId, status: 'preparing', targetReadyAt: null },
      select: { workspace: { select: { id: true, name: true } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return moves.map((m) => m.workspace);
  }

  /** Workspaces moving out of the zone: its Leaf serves them read-only. */
  async frozenOn(zoneId: string): Promise<string[]> {
    const moves = await this.db.workspaceMove.findMany({
      where: { fromZoneId: zoneId, status: { in: UNFINISHED } },
      select: { workspaceId: true },
    });
    return moves.map((m) => m.workspaceId);
  }

  /** Workspaces whose copy on the zone is no longer theirs and not purged yet. */
  async leftoversOn(zoneId: string): Promise<string[]> {
    const moves = await this.db.workspaceMove.findMany({
      where: {
        ...leftoverOn(zoneId),
      },
      select: { workspaceId: true },
    });
    return [...new Set(moves.map((m) => m.workspaceId))];
  }

  /**
   * Finished moves whose leftover copy is the Cloud's and not removed yet (the source of a move
   * to a zone, the target of an aborted move from one), oldest first: what the sweeper retries.
   */
  cloudLeftovers(limit: number): Promise<MoveRow[]> {
    return this.db.workspaceMove.findMany({
      where: {
        leftoverRemovedAt: null,
        OR: [
          { status: 'done', fromZoneId: null },
          { status: 'aborted', toZoneId: null },
        ],
      },
      orderBy: [{ completedAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  /** The zone's Leaf provisioned the move's target; the ids of moves that can copy now. */
  async targetReady(workspaceId: string, zoneId: string): Promise<MoveRow | null> {
    return this.db.$transaction(async (tx) => {
      const move = await tx.workspaceMove.findFirst({
        where: { workspaceId, toZoneId: zoneId, status: { in: UNFINISHED } },
      });
      if (!move) return null;
      if (!move.targetReadyAt)
        await tx.workspaceMove.update({ where: { id: move.id }, data: { targetReadyAt: new Date() } });
      return (await promote(tx, move.id)) ?? move;
    });
  }

  /** The zone's Leaf serves these workspaces read-only now; the moves that began copying. */
  async sourcesFrozen(zoneId: string, workspaceIds: string[]): Promise<MoveRow[]> {
    if (workspaceIds.length === 0) return [];
    return this.db.$transaction(async (tx) => {
      const moves = await tx.workspaceMove.findMany({
        where: { fromZoneId: zoneId, workspaceId: { in: workspaceIds }, status: 'preparing', sourceFrozenAt: null },
      });
      const promoted: MoveRow[] = [];
      for (const move of moves) {
        await tx.workspaceMove.update({ where: { id: move.id }, data: { sourceFrozenAt: new Date() } });
        const copying = await promote(tx, move.id);
        if (copying) promoted.push(copying);
      }
      return promoted;
    });
  }

  /**
   * Switches the workspace to the target plane and ends the move, in one transaction: from
   * this commit every request is sent to the target. Undefined when the move is not copying.
   */
  complete(move: MoveRow): Promise<MoveRow | undefined> {
    return this.finish(move, 'done', () => ({ hostedZoneId: move.toZoneId, status: 'active' }));
  }

  /**
   * Ends the move where it began: the workspace stays on its source plane, writable again;
   * `processing` when its source zone was enrolled again meanwhile (its Leaf provisions it then).
   */
  abort(move: MoveRow): Promise<MoveRow | undefined> {
    return this.finish(move, 'aborted', (current) => ({
      status: current.sourceReenrolledAt ? 'processing' : 'active',
    }));
  }

  /** The leftover copy of a finished move was purged (the Cloud's own, or a Leaf's report). */
  async leftoverRemoved(moveId: string): Promise<void> {
    await this.db.workspaceMove.updateMany({
      where: { id: moveId, leftoverRemovedAt: null },
      data: { leftoverRemovedAt: new Date() },
    });
  }

  /** A zone's Leaf purged the workspace: every finished move that left a copy there is settled. */
  async leftoverRemovedOn(zoneId: string, workspaceId: string): Promise<number> {
    const { count } = await this.db.workspaceMove.updateMany({
      where: {
        workspaceId,
        ...leftoverOn(zoneId),
      },
      data: { leftoverRemovedAt: new Date() },
    });
    return count;
  }

  private async finish(
    move: MoveRow,
    status: 'done' | 'aborted',
    workspace: (current: MoveRow) => { hostedZoneId?: string | null; status: string },
  ): Promise<MoveRow | undefined> {
    const finished = await refusing<MoveRow, undefined>(this.db, async (tx, refuse) => {
      await lockWorkspace(tx, move.workspaceId);
      const current = await tx.workspaceMove.findUnique({ where: { id: move.id } });
      const allowed = status === 'done' ? ['copying'] : UNFINISHED;
      if (!current || !allowed.includes(current.status)) return refuse(undefined);
      await tx.workspace.update({ where: { id: move.workspaceId }, data: workspace(current) });
      return tx.workspaceMove.update({ where: { id: move.id }, data: { status, completedAt: new Date() } });
    });
    return finished;
  }
}

/** Holds the zone's row against a delete until the transaction ends; false when there is no such zone. */
async function lockZoneShared(tx: WorkspacesTx, zoneId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<
    unknown[]
  >`SELECT 1 FROM control.hosted_zones WHERE id = ${zoneId}::uuid FOR KEY SHARE`;
  return rows.length === 1;
}

/**
 * Finished moves whose leftover copy is on the zone and not removed yet: the source of a
 * completed move, the target of an aborted one.
 */
function leftoverOn(zoneId: string) {
  return {
    leftoverRemovedAt: null,
    OR: [
      { status: 'done', fromZoneId: zoneId },
      { status: 'aborted', toZoneId: zoneId },
    ],
  };
}

/** preparing → copying once the target is ready and the source read-only; the row when it moved. */
async function promote(tx: WorkspacesTx, moveId: string): Promise<MoveRow | undefined> {
  const { count } = await tx.workspaceMove.updateMany({
    where: { id: moveId, status: 'preparing', targetReadyAt: { not: null }, sourceFrozenAt: { not: null } },
    data: { status: 'copying' },
  });
  return count === 1 ? tx.workspaceMove.findUniqueOrThrow({ where: { id: moveId } }) : undefined;
}
