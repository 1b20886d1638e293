import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma, createBelowCap, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { recordReadersRevocation, recordWorkspaceRevocation } from './handoff-revocations.repository.js';
import { ZONE_ENDPOINT, type WorkspaceRow } from './rows.js';
import {
  lockWorkspace,
  refusing,
  WORKSPACES_DB,
  workspacesTable,
  type WorkspacesDb,
  type WorkspacesTx,
} from './workspaces-database.js';

export interface NewWorkspace {
  name: string;
  description: string;
  visibility: string;
  createdBy: string;
  /** Placed in a hosted zone: its Leaf provisions it, so it stays `processing` until it reports ready. */
  hostedZoneId?: string;
}

export interface WorkspaceChanges {
  name?: string;
  description?: string;
  visibility?: string;
}

/** A workspace with the caller's membership role and subscription. */
export interface WorkspaceWithRelation {
  workspace: WorkspaceRow;
  role: string | undefined;
  subscribed: boolean;
}

/** One row of `WITH_RELATION`: the workspace's columns, its zone's endpoint, the user's role and subscription. */
type JoinedRow = Omit<WorkspaceRow, 'hostedZone'> & {
  endpointUrl: string | null;
  hasZone: boolean;
  role: string | null;
  subscribed: boolean;
};

/**
 * Workspaces with their zone's endpoint and the membership and subscription of the user `$1`
 * (m and s: null where there is none); the caller adds the WHERE. Every data-plane request asks
 * this for one workspace (ResolveAccess, a gate's cache miss), and the listings for the user's:
 * Prisma's relational include cost three or four queries and as many query plans each time, and
 * its `$queryRaw` still a tenth of an embed turn's CPU in its query compiler (decision 0008),
 * so it runs on `pg`.
 */
const WITH_RELATION = `
  SELECT w.id::text AS id, w.name, w.description, w.visibility, w.status, w.hosted_zone_id::text AS "hostedZoneId",
         w.settings, w.created_by::text AS "createdBy", w.created_at AS "createdAt", w.updated_at AS "updatedAt",
         w.archived_at AS "archivedAt", z.endpoint_url AS "endpointUrl", (z.id IS NOT NULL) AS "hasZone",
         m.role, (s.user_id IS NOT NULL) AS subscribed
    FROM control.workspaces w
    LEFT JOIN control.hosted_zones z ON z.id = w.hosted_zone_id
    LEFT JOIN control.workspace_members m ON m.workspace_id = w.id AND m.user_id = $1::uuid
    LEFT JOIN control.workspace_subscriptions s ON s.workspace_id = w.id AND s.user_id = $1::uuid`;

function fromJoined(row: JoinedRow): WorkspaceWithRelation {
  const { endpointUrl, hasZone, role, subscribed, ...workspace } = row;
  return {
    workspace: { ...workspace, hostedZone: hasZone ? { endpointUrl } : null },
    role: role ?? undefined,
    subscribed,
  };
}

export interface DiscoverQuery {
  /** Matched (ILIKE, escaped) against name and description; empty matches everything. */
  query: string;
  /** Only these ids (a token restricted to some workspaces); undefined for no restriction. */
  onlyIds: string[] | undefined;
  limit: number;
  offset: number;
}

/** `%`, `_` and `\` typed by the user match themselves, not any character. */
export const likePattern = (query: string): string => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const relationOf = (userId: string) => ({
  members: { where: { userId } },
  subscriptions: { where: { userId } },
  ...ZONE_ENDPOINT,
});

/** Workspaces: their rows, settings and the account-wide listings. */
@Injectable()
export class WorkspacesRepository {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: WorkspacesDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** The workspace and the user's membership and subscription, in one statement (`WITH_RELATION`). */
  async findWithRelation(workspaceId: string, userId: string): Promise<WorkspaceWithRelation | undefined> {
    const { rows } = await this.database.pool.query<JoinedRow>(`${WITH_RELATION} WHERE w.id = $2::uuid`, [
      userId,
      workspaceId,
    ]);
    return rows[0] && fromJoined(rows[0]);
  }

  /** A new workspace with its creator as owner. */
  create(workspace: NewWorkspace): Promise<WorkspaceRow> {
    return insertWorkspace(this.db, workspace);
  }

  /**
   * Creates the workspace unless its creator already created `max` (archived ones count): the
   * count and the insert run under a per-account advisory lock, so two creates at the same
   * instant cannot both pass the plan's workspacesPerUser.
   */
  createWithin(workspace: NewWorkspace, max: number): Promise<WorkspaceRow | 'limit_reached'> {
    return refusing<WorkspaceRow, 'limit_reached'>(this.db, async (tx, refuse) => {
      const created = await createBelowCap(
        tx,
        {
          lockKey: `workspaces-of:${workspace.createdBy}`,
          max,
          count: () => tx.workspace.count({ where: { createdBy: workspace.createdBy } }),
        },
        () => insertWorkspace(tx, workspace),
      );
      return created ?? refuse('limit_reached');
    });
  }

  /**
   * Making a workspace private ends non-members' reading: their handoff tokens for it (a
   * Leaf-backed one) are revoked in the same commit. The workspace's row is locked before the
   * readers are read: a reader's handoff being noted holds it shared (noteReaderIssuance), so it
   * is either committed before and revoked here, or sees the workspace private after and is refused.
   */
  update(id: string, changes: WorkspaceChanges): Promise<WorkspaceRow> {
    if (changes.visibility !== 'private')
      return this.db.workspace.update({ where: { id }, data: changes, include: ZONE_ENDPOINT });
    return this.db.$transaction(async (tx) => {
      await lockWorkspace(tx, id);
      await recordReadersRevocation(tx, id, new Date());
      return tx.workspace.update({ where: { id }, data: changes, include: ZONE_ENDPOINT });
    });
  }

  /**
   * Archives (a date) or restores (null). An archive revokes, in the same commit, every handoff
   * token of a Leaf-backed workspace issued until then: the Leaf stops serving it (its data
   * stays there, for a restore; tokens issued after a restore work).
   */
  setArchivedAt(id: string, archivedAt: Date | null): Promise<WorkspaceRow> {
    if (!archivedAt) return this.db.workspace.update({ where: { id }, data: { archivedAt }, include: ZONE_ENDPOINT });
    return this.db.$transaction(async (tx) => {
      await recordWorkspaceRevocation(tx, id, null, archivedAt);
      return tx.workspace.update({ where: { id }, data: { archivedAt }, include: ZONE_ENDPOINT });
    });
  }

  async updateSettings(id: string, settings: object): Promise<void> {
    await this.db.workspace.update({ where: { id }, data: { settings: { ...settings } } });
  }

  /**
   * Workspaces the user is a member of (not archived), by name, with the user's membership.
   * One statement, as `findWithRelation` (Prisma's include cost three queries and their plans).
   */
  async listMembered(userId: string): Promise<WorkspaceWithRelation[]> {
    const { rows } = await this.database.pool.query<JoinedRow>(
      `${WITH_RELATION} WHERE w.archived_at IS NULL AND m.user_id IS NOT NULL ORDER BY w.name, w.id`,
      [userId],
    );
    return rows.map(fromJoined);
  }

  /** Workspaces the user is a member of or subscribes to (public ones only), by name, with the user's relation. */
  async listAccessible(userId: string): Promise<WorkspaceWithRelation[]> {
    // A subscription to a workspace that became private grants nothing, so it is not listed.
    const { rows } = await this.database.pool.query<JoinedRow>(
      `${WITH_RELATION}
        WHERE w.archived_at IS NULL AND (m.user_id IS NOT NULL OR (w.visibility = 'public' AND s.user_id IS NOT NULL))
        ORDER BY w.name, w.id`,
      [userId],
    );
    return rows.map(fromJoined);
  }

  /** Archived workspaces the user owns, most recently archived first. */
  listArchivedOwned(userId: string): Promise<WorkspaceRow[]> {
    return this.db.workspace.findMany({
      where: { archivedAt: { not: null }, members: { some: { userId, role: 'owner' } } },
      include: ZONE_ENDPOINT,
      orderBy: [{ archivedAt: 'desc' }, { id: 'asc' }],
    });
  }

  /** A page of public, unarchived workspaces (ids by name) and how many match in all. */
  async discoverPublic(q: DiscoverQuery): Promise<{ ids: string[]; totalCount: number }> {
    const search = q.query
      ? ControlPrisma.sql`AND (name ILIKE ${likePattern(q.query)} ESCAPE '\\' OR description ILIKE ${likePattern(q.query)} ESCAPE '\\')`
      : ControlPrisma.empty;
    const restriction = q.onlyIds ? ControlPrisma.sql`AND id = ANY(${q.onlyIds}::uuid[])` : ControlPrisma.empty;
    const page = await this.db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT id, count(*) OVER () AS total FROM ${workspacesTable}
      WHERE visibility = 'public' AND archived_at IS NULL ${search} ${restriction}
      ORDER BY name ASC, id ASC LIMIT ${q.limit} OFFSET ${q.offset}`;
    const totalCount = page.length > 0 ? Number(page[0]!.total) : await this.countPublic(search, restriction);
    return { ids: page.map((p) => p.id), totalCount };
  }

  /** These workspaces (any order) with the user's relation. */
  findManyWithRelation(ids: string[], userId: string) {
    return this.db.workspace.findMany({ where: { id: { in: ids } }, include: relationOf(userId) });
  }

  /** The total when the page is empty (an offset past the end): the window count is not there. */
  private async countPublic(search: ControlPrisma.Sql, restriction: ControlPrisma.Sql): Promise<number> {
    const [{ total }] = await this.db.$queryRaw<{ total: bigint }[]>`
      SELECT count(*) AS total FROM ${workspacesTable} WHERE visibility = 'public' AND archived_at IS NULL ${search} ${restriction}`;
    return Number(total);
  }
}

function insertWorkspace(db: WorkspacesDb | WorkspacesTx, workspace: NewWorkspace): Promise<WorkspaceRow> {
  const { hostedZoneId, ...fields } = workspace;
  return db.workspace.create({
    data: {
      ...fields,
      members: { create: { userId: workspace.createdBy, role: 'owner' } },
      ...(hostedZoneId && { hostedZoneId, status: 'processing' }),
    },
    include: ZONE_ENDPOINT,
  });
}
