import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { tokenReaches } from './caller.js';
import { WorkspaceAccess } from './workspace-access.js';
import { readSettings } from './workspace-settings.js';
import { WorkspaceMovesRepository } from '../persistence/workspace-moves.repository.js';

/**
 * For other components' own access checks: how the caller in the auth context stands towards
 * a workspace. `found` is false whenever the policy would answer 404 for a read (missing,
 * hidden, outside the token), so no component can leak a private workspace's existence;
 * an archived workspace is reported (archived=true) only to its owners.
 */
@Injectable()
export class ResolveAccessHandlers {
  constructor(
    private readonly access: WorkspaceAccess,
    private readonly moves: WorkspaceMovesRepository,
  ) {}

  @Handles(WorkspacesService.method.resolveAccess)
  async resolve(input: RequestOf<typeof WorkspacesService, 'resolveAccess'>, context: RequestContext) {
    const { decision, workspace, relation } = await this.access.decision(context, input.workspaceId, 'workspaces:read');
    const visible = decision.allowed || decision.status === 403 || this.ownerOfArchived(context, workspace, relation);
    if (!workspace || !visible) return { found: false, relation: 'none' };
    return {
      found: true,
      relation,
      visibility: workspace.visibility,
      archived: workspace.archivedAt !== null,
      hostedZoneId: workspace.hostedZoneId ?? '',
      status: workspace.status,
      endpointUrl: workspace.hostedZone?.endpointUrl ?? '',
      planHolderId: workspace.createdBy,
      moveImport: workspace.status === 'moving' && (await this.movingToTheCloud(workspace.id)),
      // What the fragments component asks enrichment for depends on these (docs/workspaces.md#settings).
      enrichment: readSettings(workspace.settings).enrichment,
    };
  }

  /** The workspace's move targets the Cloud and copies now: the Cloud's import of it is admitted. */
  private async movingToTheCloud(workspaceId: string): Promise<boolean> {
    const move = await this.moves.unfinished(workspaceId);
    return !!move && move.toZoneId === null && move.status === 'copying';
  }

  private ownerOfArchived(
    context: RequestContext,
    workspace: { id: string; archivedAt: Date | null } | undefined,
    relation: string,
  ): boolean {
    const auth = context.auth;
    return (
      !!workspace &&
      workspace.archivedAt !== null &&
      relation === 'owner' &&
      !!auth?.userId &&
      tokenReaches(auth, workspace.id)
    );
  }
}
