import { Inject, Injectable } from '@nestjs/common';
import type { MessageShape } from '@bufbuild/protobuf';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { badRequest } from '@kw/platform-errors';
import { Handles } from '@kw/platform-transport';
import { WORKSPACES_DB, type ControlDb } from './control-db.js';
import { isUuid } from './ids.js';
import { WorkspaceAccess } from './workspace-access.js';
import { applySettingsPatch, readSettings, settingsMessage } from './workspace-settings.js';

type M = typeof WorkspacesService.method;
type In<K extends keyof M> = MessageShape<M[K]['input']>;

/** Workspace settings: readable by whoever reads the workspace, changed by its owners. */
@Injectable()
export class SettingsHandlers {
  constructor(
    @Inject(WORKSPACES_DB) private readonly db: ControlDb,
    private readonly access: WorkspaceAccess,
  ) {}

  @Handles(WorkspacesService.method.getWorkspaceSettings)
  async get(input: In<'getWorkspaceSettings'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'workspaces:read');
    return { settings: settingsMessage(readSettings(workspace.settings)) };
  }

  @Handles(WorkspacesService.method.updateWorkspaceSettings)
  async update(input: In<'updateWorkspaceSettings'>, context: RequestContext) {
    const { workspace } = await this.access.authorize(context, input.workspaceId, 'workspaces:write');
    const typeId = input.defaultFragmentTypeId;
    if (typeId !== undefined && typeId !== '' && !isUuid(typeId)) throw badRequest('defaultFragmentTypeId must be a UUID or null');
    const next = applySettingsPatch(readSettings(workspace.settings), {
      defaultFragmentTypeId: typeId === undefined ? undefined : typeId || null,
      enrichmentSummaries: input.enrichmentSummaries,
      enrichmentTags: input.enrichmentTags,
      allowPublicSubscriptions: input.allowPublicSubscriptions,
    });
    await this.db.workspace.update({ where: { id: workspace.id }, data: { settings: { ...next } } });
    return { settings: settingsMessage(next) };
  }
}
