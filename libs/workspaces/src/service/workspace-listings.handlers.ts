import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { DISCOVER_LIMIT_DEFAULT, DISCOVER_LIMIT_MAX } from '../workspaces-limits.js';
import { assertAccount, tokenReaches } from './caller.js';
import { relationFrom } from './workspace-access.js';
import { workspaceView } from './workspace-view.js';

/**
 * The account-wide listings. Each is an account-level action (caller and scope); what it
 * returns is limited to workspaces the caller stands in and the token reaches.
 */
@Injectable()
export class WorkspaceListingsHandlers {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  @Handles(WorkspacesService.method.listMyWorkspaces)
  async listMine(_input: RequestOf<typeof WorkspacesService, 'listMyWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.workspaces.listMembered(userId);
    return {
      workspaces: rows
        .filter(({ workspace }) => tokenReaches(auth, workspace.id))
        .map(({ workspace, role }) => workspaceView(workspace, relationFrom(role, false))),
    };
  }

  @Handles(WorkspacesService.method.listAccessibleWorkspaces)
  async listAccessible(
    _input: RequestOf<typeof WorkspacesService, 'listAccessibleWorkspaces'>,
    context: RequestContext,
  ) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.workspaces.listAccessible(userId);
    return {
      workspaces: rows
        .filter(({ workspace }) => tokenReaches(auth, workspace.id))
        .map(({ workspace, role, subscribed }) => workspaceView(workspace, relationFrom(role, subscribed))),
    };
  }

  @Handles(WorkspacesService.method.listArchivedWorkspaces)
  async listArchived(_input: RequestOf<typeof WorkspacesService, 'listArchivedWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const rows = await this.workspaces.listArchivedOwned(userId);
    return { workspaces: rows.filter((w) => tokenReaches(auth, w.id)).map((w) => workspaceView(w, 'owner')) };
  }

  @Handles(WorkspacesService.method.discoverWorkspaces)
  async discover(input: RequestOf<typeof WorkspacesService, 'discoverWorkspaces'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:read');
    const limit = Math.min(Math.max(input.limit || DISCOVER_LIMIT_DEFAULT, 1), DISCOVER_LIMIT_MAX);
    const offset = Math.max(input.offset, 0);
    // A token restricted to some workspaces discovers only those (the restriction is a boundary).
    const { ids, totalCount } = await this.workspaces.discoverPublic({
      query: input.query.trim(),
      onlyIds: auth.allWorkspaces ? undefined : auth.workspaceIds.filter(Boolean),
      limit,
      offset,
    });
    const rows = await this.workspaces.findManyWithRelation(ids, userId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const workspaces = ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      const { members, subscriptions, ...w } = row;
      return [workspaceView(w, relationFrom(members[0]?.role, subscriptions.length > 0))];
    });
    return { workspaces, totalCount };
  }
}
