import { Injectable } from '@nestjs/common';
import { FragmentsService, WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, badRequest } from '@kw/platform-errors';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { isUuid } from '@kw/platform-ids';
import { AccessChanges } from './access-changes.js';
import { WorkspaceAccess } from './workspace-access.js';
import { applySettingsPatch, readSettings, settingsMessage } from './workspace-settings.js';

/** Workspace settings: readable by whoever reads the workspace, changed by its owners. */
@Injectable()
export class SettingsHandlers {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly access: WorkspaceAccess,
    private readonly client: ServiceClient,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(WorkspacesService.method.getWorkspaceSettings)
  async get(input: RequestOf<typeof WorkspacesService, 'getWorkspaceSettings'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'workspaces:read');
    return { settings: settingsMessage(readSettings(workspace.settings)) };
  }

  @Handles(WorkspacesService.method.updateWorkspaceSettings)
  async update(input: RequestOf<typeof WorkspacesService, 'updateWorkspaceSettings'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'workspaces:write');
    const typeId = input.defaultFragmentTypeId;
    if (typeId !== undefined && typeId !== '' && !isUuid(typeId))
      throw badRequest('defaultFragmentTypeId must be a UUID or null');
    if (typeId && !workspace.hostedZone) await this.checkOwnType(workspace.id, typeId);
    const next = applySettingsPatch(readSettings(workspace.settings), {
      defaultFragmentTypeId: typeId === undefined ? undefined : typeId || null,
      enrichmentSummaries: input.enrichmentSummaries,
      enrichmentTags: input.enrichmentTags,
      allowPublicSubscriptions: input.allowPublicSubscriptions,
    });
    await this.workspaces.updateSettings(workspace.id, next);
    // ResolveAccess answers carry the enrichment settings: the gates' cached answers must go.
    this.changes.workspace(workspace.id);
    return { settings: settingsMessage(next) };
  }

  /**
   * The default type must be one of the workspace's own types: an id of another tenant's type
   * is refused exactly like one that does not exist. The fragments component owns the types,
   * so it is asked, as the caller. (A hosted zone's types live on its Leaf, out of the Cloud's
   * sight: there the id is stored as given and the Leaf checks types where they are used.)
   */
  private async checkOwnType(workspaceId: string, fragmentTypeId: string): Promise<void> {
    try {
      await this.client.call(FragmentsService.method.getFragmentType, { workspaceId, fragmentTypeId });
    } catch (err) {
      if (AppError.isAppError(err) && err.status === 404) {
        throw new AppError({
          status: 400,
          code: 'INVALID_FRAGMENT_TYPE',
          message: 'defaultFragmentTypeId must be a fragment type of this workspace',
          param: 'defaultFragmentTypeId',
        });
      }
      throw err;
    }
  }
}
