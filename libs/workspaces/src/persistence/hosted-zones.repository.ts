import { Inject, Injectable } from '@nestjs/common';
import type { HostedZoneRow } from './rows.js';
import { UNFINISHED } from './workspace-moves.repository.js';
import { refusing, WORKSPACES_DB, type WorkspacesDb, type WorkspacesTx } from './workspaces-database.js';

export interface NewHostedZone {
  name: string;
  region: string;
  endpointUrl: string | null;
  ownerId: string;
  enrollmentTokenHash: string;
  enrollmentTokenExpiresAt: Date;
}

export interface HostedZoneChanges {
  name?: string;
  region?: string;
  endpointUrl?: string | null;
}

/** What a Leaf's enrollment records on its zone. */
export interface Enrollment {
  credentialHash: string;
  at: Date;
  endpointUrl: string;
  leafVersion: string | null;
}

/** A workspace placed in a zone, as the zone's Leaf sees it. */
export interface Placement {
  id: string;
  name: string;
  status: string;
}

const placementFields = { id: true, name: true, status: true } as const;

/** Why a zone was not deleted (nothing was). */
export type ZoneDeleteRefusal =
  { refused: 'in-use' } | { refused: 'moving'; moves: Array<{ id: string; workspaceId: string }> };

/** Hosted zones, their Leaf's credentials and heartbeats, and the workspaces placed in them. */
@Injectable()
export class HostedZonesRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  create(zone: NewHostedZone): Promise<HostedZoneRow> {
    return this.db.hostedZone.create({ data: zone });
  }

  findById(id: string): Promise<HostedZoneRow | null> {
    return this.db.hostedZone.findUnique({ where: { id } });
  }

  /** Zones of one owner (every zone when ownerId is undefined), by name, with how many workspaces each holds. */
  async listWithCounts(ownerId: string | undefined): Promise<Array<{ zone: HostedZoneRow; workspaceCount: number }>> {
    const zones = await this.db.hostedZone.findMany({
      where: ownerId === undefined ? {} : { ownerId },
      include: { _count: { select: { workspaces: true } } },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
    return zones.map(({ _count, ...zone }) => ({ zone, workspaceCount: _count.workspaces }));
  }

  update(id: string, changes: HostedZoneChanges): Promise<HostedZoneRow> {
    return this.db.hostedZone.update({ where: { id }, data: changes });
  }

  /**
   * Deletes the zone; false when a workspace still references it (a placement made after
   * the caller counted: the foreign key refuses, P2003).
   */
  async delete(id: string): Promise<boolean> {
    try {
      await this.db.hostedZone.delete({ where: { id } });
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'P2003') return false;
      throw err;
    }
  }

  /**
   * Deletes the zone and its archived workspaces (their memberships and invitations cascade),
   * in one transaction with the zone's row locked; a refusal, and nothing deleted, when a live
   * workspace is (or was just) placed on it, or a move to or from it has not ended (a move
   * begins holding its target zone's row, so one that began meanwhile is seen here).
   */
  async deleteWithArchivedWorkspaces(id: string): Promise<string[] | ZoneDeleteRefusal> {
    try {
      return await refusing<string[], ZoneDeleteRefusal>(this.db, async (tx, refuse) => {
        await tx.$executeRaw`SELECT 1 FROM control.hosted_zones WHERE id = ${id}::uuid FOR UPDATE`;
        const moves = await unfinishedMovesOn(tx, id);
        if (moves.length > 0) return refuse({ refused: 'moving', moves });
        const archived = await tx.workspace.findMany({
          where: { hostedZoneId: id, archivedAt: { not: null } },
          select: { id: true },
        });
        const ids = archived.map((w) => w.id);
        await tx.workspace.deleteMany({ where: { id: { in: ids } } });
        await tx.hostedZone.delete({ where: { id } });
        return ids;
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'P2003') return { refused: 'in-use' };
      throw err;
    }
  }

  /** Moves to or from the zone that have not ended, oldest first. */
  unfinishedMoves(zoneId: string): Promise<Array<{ id: string; workspaceId: string }>> {
    return unfinishedMovesOn(this.db, zoneId);
  }

  /** Workspaces placed on the zone: live ones, and archived ones (kept until deleted with it). */
  async workspaceCounts(zoneId: string): Promise<{ live: number; archived: number }> {
    const [live, archived] = await Promise.all([
      this.db.workspace.count({ where: { hostedZoneId: zoneId, archivedAt: null } }),
      this.db.workspace.count({ where: { hostedZoneId: zoneId, archivedAt: { not: null } } }),
    ]);
    return { live, archived };
  }

  /** A new one-time enrollment token (its hash) replaces the previous one. */
  setEnrollmentToken(id: string, hash: string, expiresAt: Date): Promise<HostedZoneRow> {
    return this.db.hostedZone.update({
      where: { id },
      data: { enrollmentTokenHash: hash, enrollmentTokenExpiresAt: expiresAt },
    });
  }

  workspaceCount(zoneId: string): Promise<number> {
    return this.db.workspace.count({ where: { hostedZoneId: zoneId } });
  }

  findByEnrollmentTokenHash(hash: string): Promise<HostedZoneRow | null> {
    return this.db.hostedZone.findUnique({ where: { enrollmentTokenHash: hash } });
  }

  findByCredentialHash(hash: string): Promise<HostedZoneRow | null> {
    return this.db.hostedZone.findUnique({ where: { credentialHash: hash } });
  }

  /**
   * Uses the enrollment token: conditional on its hash still being there, so of two
   * concurrent uses exactly one wins (answered: the ids of the workspaces sent back to
   * provisioning), the other gets undefined. In the same commit the zone's active workspaces (archived ones too)
   * go back to `processing`: the Leaf that enrolled may be a new one without them, and the
   * heartbeat lists only processing placements (it provisions them, reports each ready again).
   * Moves that have not ended follow the same rule: a move into the zone waits again for its
   * target to be provisioned (preparing, listed as a placement), so it never completes onto a
   * Leaf that lacks the workspace; a move out of it is marked, so an abort puts the workspace
   * back to `processing` rather than `active` on a Leaf that may lack it.
   */
  async enroll(id: string, enrollmentTokenHash: string, enrollment: Enrollment): Promise<string[] | undefined> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.hostedZone.updateMany({
        where: { id, enrollmentTokenHash },
        data: {
          enrollmentTokenHash: null,
          enrollmentTokenExpiresAt: null,
          credentialHash: enrollment.credentialHash,
          enrolledAt: enrollment.at,
          lastHeartbeatAt: enrollment.at,
          endpointUrl: enrollment.endpointUrl,
          leafVersion: enrollment.leafVersion,
        },
      });
      if (count !== 1) return undefined;
      // The zone's workspaces and those moving into it, locked in the order a move locks one
      // (workspace, then move): a move starting, completing or aborting meanwhile either ended
      // before (its workspace is seen active below) or sees this enrollment when it goes on.
      await tx.$queryRaw`
        SELECT w.id FROM control.workspaces w
         WHERE w.hosted_zone_id = ${id}::uuid
            OR w.id IN (SELECT m.workspace_id FROM control.workspace_moves m
                         WHERE m.to_zone_id = ${id}::uuid AND m.status IN ('preparing', 'copying'))
         ORDER BY w.id
         FOR UPDATE`;
      await tx.workspaceMove.updateMany({
        where: { toZoneId: id, status: { in: UNFINISHED } },
        data: { status: 'preparing', targetReadyAt: null },
      });
      await tx.workspaceMove.updateMany({
        where: { fromZoneId: id, status: { in: UNFINISHED } },
        data: { sourceReenrolledAt: enrollment.at },
      });
      const active = await tx.workspace.findMany({
        where: { hostedZoneId: id, status: 'active' },
        select: { id: true },
      });
      const ids = active.map((w) => w.id);
      if (ids.length > 0)
        await tx.workspace.updateMany({
          where: { id: { in: ids }, hostedZoneId: id, status: 'active' },
          data: { status: 'processing' },
        });
      return ids;
    });
  }

  /** A heartbeat now, with the endpoint and version the Leaf reported (when it did). */
  async heartbeat(id: string, reported: { endpointUrl?: string; leafVersion?: string } = {}): Promise<void> {
    await this.db.hostedZone.update({
      where: { id },
      data: {
        lastHeartbeatAt: new Date(),
        ...(reported.endpointUrl && { endpointUrl: reported.endpointUrl }),
        ...(reported.leafVersion && { leafVersion: reported.leafVersion }),
      },
    });
  }

  /** The zone's workspaces waiting for its Leaf (processing, not archived), oldest first. */
  pendingPlacements(zoneId: string): Promise<Placement[]> {
    return this.db.workspace.findMany({
      where: { hostedZoneId: zoneId, status: 'processing', archivedAt: null },
      select: placementFields,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /** Marks a workspace of the zone active; false when the zone holds no such workspace. Idempotent. */
  async markPlacementReady(workspaceId: string, zoneId: string): Promise<boolean> {
    const { count } = await this.db.workspace.updateMany({
      // Never a workspace moving out of the zone: a late report must not end its read-only state.
      where: { id: workspaceId, hostedZoneId: zoneId, status: { in: ['processing', 'active'] } },
      data: { status: 'active' },
    });
    return count === 1;
  }

  placement(workspaceId: string): Promise<Placement> {
    return this.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: placementFields });
  }
}

function unfinishedMovesOn(db: WorkspacesTx, zoneId: string): Promise<Array<{ id: string; workspaceId: string }>> {
  return db.workspaceMove.findMany({
    where: { status: { in: UNFINISHED }, OR: [{ toZoneId: zoneId }, { fromZoneId: zoneId }] },
    select: { id: true, workspaceId: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}
