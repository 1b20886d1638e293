import { Inject, Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { ControlPrisma, PLANE_SCHEMAS } from '@kw/platform-persistence';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { DISCOVER_LIMIT_DEFAULT, DISCOVER_LIMIT_MAX } from '../workspace-limits.js';
import { assertAccount, tokenReaches } from './caller.js';
import { WORKSPACES_DB, type ControlDb } from './control-db.js';
import { relationFrom } from './workspace-access.js';
import { workspaceView, ZONE_ENDPOINT } from './workspace-view.js';

const workspacesTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."workspaces"`);

/** `%`, `_` and `\` typed by the user match themselves, not any character. */
export const likePattern = (query: string): string => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const byName = [{ name: 'asc' as const }, { id: 'asc' as const }];

/**
 * The account-wide listings. Each is an account-level action (caller and scope); what it
 * returns is limited to workspaces the caller stands in and the token reaches.
 */
@Injectable()
export class WorkspaceListingHandlers {
  constructor(@Inject(WORKSPACES_DB) private readonly db: ControlDb) {}

  @Handles(WorkspacesService.method.listMyWorkspaces)
  async listMine(_input: RequestOf<typeof WorkspacesService, 'listMyWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.db.workspace.findMany({
      where: { archivedAt: null, members: { some: { userId } } },
      include: { members: { where: { userId } }, ...ZONE_ENDPOINT },
      orderBy: byName,
    });
    return {
      workspaces: rows
        .filter((w) => tokenReaches(auth, w.id))
        .map(({ members, ...w }) => workspaceView(w, relationFrom(members[0]?.role, false))),
    };
  }

  @Handles(WorkspacesService.method.listAccessibleWorkspaces)
  async listAccessible(
    _input: RequestOf<typeof WorkspacesService, 'listAccessibleWorkspaces'>,
    context: RequestContext,
  ) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.db.workspace.findMany({
      where: {
        archivedAt: null,
        // A subscription to a workspace that became private grants nothing, so it is not listed.
        OR: [{ members: { some: { userId } } }, { visibility: 'public', subscriptions: { some: { userId } } }],
      },
      include: { members: { where: { userId } }, subscriptions: { where: { userId } }, ...ZONE_ENDPOINT },
      orderBy: byName,
    });
    return {
      workspaces: rows
        .filter((w) => tokenReaches(auth, w.id))
        .map(({ members, subscriptions, ...w }) =>
          workspaceView(w, relationFrom(members[0]?.role, subscriptions.length > 0)),
        ),
    };
  }

  @Handles(WorkspacesService.method.listArchivedWorkspaces)
  async listArchived(_input: RequestOf<typeof WorkspacesService, 'listArchivedWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.db.workspace.findMany({
      where: { archivedAt: { not: null }, members: { some: { userId, role: 'owner' } } },
      include: ZONE_ENDPOINT,
      orderBy: [{ archivedAt: 'desc' }, { id: 'asc' }],
    });
    return { workspaces: rows.filter((w) => tokenReaches(auth, w.id)).map((w) => workspaceView(w, 'owner')) };
  }

  @Handles(WorkspacesService.method.discoverWorkspaces)
  async discover(input: RequestOf<typeof WorkspacesService, 'discoverWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const limit = Math.min(Math.max(input.limit || DISCOVER_LIMIT_DEFAULT, 1), DISCOVER_LIMIT_MAX);
    const offset = Math.max(input.offset, 0);
    const query = input.query.trim();
    const search = query
      ? ControlPrisma.sql`AND (name ILIKE ${likePattern(query)} ESCAPE '\\' OR description ILIKE ${likePattern(query)} ESCAPE '\\')`
      : ControlPrisma.empty;
    // A token restricted to some workspaces discovers only those (the restriction is a boundary).
    const restriction = auth.allWorkspaces
      ? ControlPrisma.empty
      : ControlPrisma.sql`AND id = ANY(${auth.workspaceIds.filter(Boolean)}::uuid[])`;
    const page = await this.db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT id, count(*) OVER () AS total FROM ${workspacesTable}
      WHERE visibility = 'public' AND archived_at IS NULL ${search} ${restriction}
      ORDER BY name ASC, id ASC LIMIT ${limit} OFFSET ${offset}`;
    const totalCount = page.length > 0 ? Number(page[0].total) : await this.countPublic(search, restriction);
    const rows = await this.db.workspace.findMany({
      where: { id: { in: page.map((p) => p.id) } },
      include: { members: { where: { userId } }, subscriptions: { where: { userId } }, ...ZONE_ENDPOINT },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const workspaces = page.flatMap(({ id }) => {
      const row = byId.get(id);
      if (!row) return [];
      const { members, subscriptions, ...w } = row;
      return [workspaceView(w, relationFrom(members[0]?.role, subscriptions.length > 0))];
    });
    return { workspaces, totalCount };
  }

  /** The total when the page is empty (an offset past the end): the window count is not there. */
  private async countPublic(search: ControlPrisma.Sql, restriction: ControlPrisma.Sql): Promise<number> {
    const [{ total }] = await this.db.$queryRaw<{ total: bigint }[]>`
      SELECT count(*) AS total FROM ${workspacesTable} WHERE visibility = 'public' AND archived_at IS NULL ${search} ${restriction}`;
    return Number(total);
  }
}
