import { Injectable } from '@nestjs/common';
import { WebhooksService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WebhooksRepository } from '../persistence/webhooks.repository.js';

/**
 * Internal (no HTTP route): a moved workspace's copy on this plane is removed
 * (docs/portable-workspaces.md#moving): its webhooks and their deliveries. Idempotent.
 */
@Injectable()
export class WorkspacePurgeHandlers {
  constructor(private readonly webhooks: WebhooksRepository) {}

  @Handles(WebhooksService.method.purgeWorkspaceWebhooks)
  async purge(input: RequestOf<typeof WebhooksService, 'purgeWorkspaceWebhooks'>) {
    if (!isUuid(input.workspaceId)) throw badRequest('workspace_id must be a UUID');
    await this.webhooks.purgeWorkspace(input.workspaceId);
    return {};
  }
}
