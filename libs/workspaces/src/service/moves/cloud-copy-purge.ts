import { Injectable } from '@nestjs/common';
import { FilesService, FragmentsService, SearchService, WebhooksService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

/** A large workspace's rows and blobs take longer than an ordinary call. */
const PURGE = { timeoutMs: 300_000 };

/**
 * Removes the Cloud's copy of a workspace's data: each data-plane component deletes what it holds
 * (its internal purge RPC; components never delete each other's tables). Every step is
 * idempotent, so a failed purge is simply run again.
 */
@Injectable()
export class CloudCopyPurge {
  constructor(private readonly client: ServiceClient) {}

  async purge(workspaceId: string): Promise<void> {
    await this.client.call(FragmentsService.method.purgeWorkspaceFragments, { workspaceId }, PURGE);
    await this.client.call(SearchService.method.purgeWorkspaceSearchData, { workspaceId }, PURGE);
    await this.client.call(WebhooksService.method.purgeWorkspaceWebhooks, { workspaceId }, PURGE);
    await this.client.call(FilesService.method.purgeWorkspaceFiles, { workspaceId }, PURGE);
  }
}
