import { Injectable } from '@nestjs/common';
import { workspaceMoving } from '@kw/platform-errors';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { denialError } from '@kw/platform-access-policy';
import { AccountLimits, planLimitReached } from '@kw/platform-entitlements';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from './access-changes.js';
import { assertAccount, assertAllWorkspaces } from './caller.js';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { ZonePlacement } from './hosted-zones/zone-placement.js';
import { workspaceNotFound } from './workspace-errors.js';
import { checkDescription, checkName, checkVisibility } from './workspace-fields.js';
import { WorkspaceAccess } from './workspace-access.js';
import { workspaceView } from './workspace-view.js';

/** One workspace's lifecycle: create, read, update, archive, restore. */
@Injectable()
export class WorkspacesHandlers {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly access: WorkspaceAccess,
    private readonly placement: ZonePlacement,
    private readonly changes: AccessChanges,
    private readonly limits: AccountLimits,
  ) {}

  @Handles(WorkspacesService.method.createWorkspace)
  async create(input: RequestOf<typeof WorkspacesService, 'createWorkspace'>, context: RequestContext) {
    const { userId, auth } = assertAccount(context, 'workspaces:write');
    // The new workspace would be outside the credential's list (and out of its own reach).
    assertAllWorkspaces(auth, 'create one');
    const name = checkName(input.name);
    const description = checkDescription(input.description);
    const visibility = checkVisibility(input.visibility || 'private');
    const cap = await this.limits.limitOf(userId, 'workspacesPerUser');
    // Hosted Zone placement: the zone's Leaf provisions the workspace, which stays `processing` until it reports ready.
    const zone =
      input.hostedZoneId !== undefined ? await this.placement.placeableZone(userId, input.hostedZoneId) : undefined;
    const fields = { name, description, visibility, createdBy: userId, ...(zone && { hostedZoneId: zone.id }) };
    const row = cap ? await this.workspaces.createWithin(fields, cap.max) : await this.workspaces.create(fields);
    if (row === 'limit_reached') throw planLimitReached('workspacesPerUser', cap!.max, cap!.planId);
    return { workspace: workspaceView(row, 'owner') };
  }

  @Handles(WorkspacesService.method.getWorkspace)
  async get(input: RequestOf<typeof WorkspacesService, 'getWorkspace'>, context: RequestContext) {
    const { workspace, relation } = await this.access.authorize(context, input.workspaceId, 'workspaces:read');
    return { workspace: workspaceView(workspace, relation) };
  }

  @Handles(WorkspacesService.method.updateWorkspace)
  async update(input: RequestOf<typeof WorkspacesService, 'updateWorkspace'>, context: RequestContext) {
    const { workspace, relation } = await this.access.authorize(context, input.workspaceId, 'workspaces:write');
    const data = {
      ...(input.name !== undefined && { name: checkName(input.name) }),
      ...(input.description !== undefined && { description: checkDescription(input.description) }),
      ...(input.visibility !== undefined && { visibility: checkVisibility(input.visibility) }),
    };
    if (Object.keys(data).length === 0) return { workspace: workspaceView(workspace, relation) };
    const row = await this.workspaces.update(workspace.id, data);
    this.changes.workspace(workspace.id);
    return { workspace: workspaceView(row, relation) };
  }

  @Handles(WorkspacesService.method.archiveWorkspace)
  async archive(input: RequestOf<typeof WorkspacesService, 'archiveWorkspace'>, context: RequestContext) {
    const { workspace, relation } = await this.access.authorize(context, input.workspaceId, 'workspaces:delete');
    // A move completes or aborts first: it would bring an archived workspace back to life on its target.
    if (workspace.status === 'moving') throw workspaceMoving();
    const row = await this.workspaces.setArchivedAt(workspace.id, new Date());
    this.changes.workspace(workspace.id);
    return { workspace: workspaceView(row, relation) };
  }

  @Handles(WorkspacesService.method.restoreWorkspace)
  async restore(input: RequestOf<typeof WorkspacesService, 'restoreWorkspace'>, context: RequestContext) {
    const { decision, workspace, relation } = await this.access.decision(
      context,
      input.workspaceId,
      'workspaces:delete',
      { restoring: true },
    );
    if (!decision.allowed) {
      // An archived workspace exists only for its owners: anybody else is told it does not.
      if (decision.status === 403 && workspace?.archivedAt && relation !== 'owner') throw workspaceNotFound();
      throw denialError(decision);
    }
    if (workspace!.archivedAt === null) return { workspace: workspaceView(workspace!, relation) };
    const row = await this.workspaces.setArchivedAt(workspace!.id, null);
    this.changes.workspace(workspace!.id);
    return { workspace: workspaceView(row, relation) };
  }
}
