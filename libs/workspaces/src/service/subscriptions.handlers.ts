import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { isWorkspaceRole } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from './access-changes.js';
import { SubscriptionsRepository } from '../persistence/subscriptions.repository.js';
import { alreadyMember, subscriptionsClosed, workspaceNotFound } from './workspace-errors.js';
import { WorkspaceAccess, type AuthorizedWorkspace } from './workspace-access.js';
import { readSettings } from './workspace-settings.js';
import { workspaceView } from './workspace-view.js';

/** Public subscriptions: read-style access only, and only to public workspaces. */
@Injectable()
export class SubscriptionsHandlers {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly access: WorkspaceAccess,
    private readonly changes: AccessChanges,
  ) {}

  @Handles(WorkspacesService.method.subscribeWorkspace)
  async subscribe(input: RequestOf<typeof WorkspacesService, 'subscribeWorkspace'>, context: RequestContext) {
    const target = await this.publicWorkspace(context, input.workspaceId);
    const { workspace, relation, userId } = target;
    if (isWorkspaceRole(relation)) throw alreadyMember();
    if (relation !== 'subscriber') {
      if (!readSettings(workspace.settings).allowPublicSubscriptions) throw subscriptionsClosed();
      await this.subscriptions.subscribe(workspace.id, userId);
      this.changes.workspace(workspace.id);
    }
    return { workspace: workspaceView(workspace, 'subscriber') };
  }

  @Handles(WorkspacesService.method.unsubscribeWorkspace)
  async unsubscribe(input: RequestOf<typeof WorkspacesService, 'unsubscribeWorkspace'>, context: RequestContext) {
    const { workspace, relation, userId } = await this.publicWorkspace(context, input.workspaceId);
    await this.subscriptions.unsubscribe(workspace.id, userId);
    this.changes.workspace(workspace.id);
    return { workspace: workspaceView(workspace, relation === 'subscriber' ? 'none' : relation) };
  }

  /** A private workspace answers 404 here, even to its members: there is nothing to subscribe to. */
  private async publicWorkspace(context: RequestContext, workspaceId: string): Promise<AuthorizedWorkspace> {
    const target = await this.access.authorize(context, workspaceId, 'workspaces:read');
    if (target.workspace.visibility !== 'public') throw workspaceNotFound();
    return target;
  }
}
