import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import type { WebhookRow } from '../persistence/rows.js';
import { WebhooksRepository } from '../persistence/webhooks.repository.js';

export const webhookNotFound = () => notFound('Webhook');
export const deliveryNotFound = () => notFound('Delivery');

/** Loads webhooks for a caller who may manage their workspace; anything else reads as missing. */
@Injectable()
export class WebhookRecords {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  async authorizedWebhook(context: RequestContext, workspaceId: string, webhookId: string): Promise<WebhookRow> {
    const { workspaceId: id } = await this.gate.authorize(context, workspaceId, 'webhooks:manage');
    const row = isUuid(webhookId) ? await this.webhooks.findInWorkspace(webhookId, id) : null;
    if (!row) throw webhookNotFound();
    return row;
  }

  /** When each webhook's previous secrets stop signing (only webhooks inside an overlap). */
  overlapEnds(webhookIds: string[]): Promise<Map<string, Date>> {
    return this.webhooks.overlapEnds(webhookIds);
  }
}
