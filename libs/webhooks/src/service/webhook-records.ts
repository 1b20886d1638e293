import { Inject, Injectable } from '@nestjs/common';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { WEBHOOKS_DB, type WebhookRow, type WebhooksDb } from './webhooks-db.js';

export const webhookNotFound = () => notFound('Webhook');
export const deliveryNotFound = () => notFound('Delivery');

/** Loads webhooks for a caller who may manage their workspace; anything else reads as missing. */
@Injectable()
export class WebhookRecords {
  constructor(
    @Inject(WEBHOOKS_DB) private readonly db: WebhooksDb,
    private readonly gate: WorkspaceGate,
  ) {}

  async authorizedWebhook(context: RequestContext, workspaceId: string, webhookId: string): Promise<WebhookRow> {
    const { workspaceId: id } = await this.gate.authorize(context, workspaceId, 'webhooks:manage');
    const row = isUuid(webhookId)
      ? await this.db.webhook.findFirst({ where: { id: webhookId, workspaceId: id } })
      : null;
    if (!row) throw webhookNotFound();
    return row;
  }

  /** When each webhook's previous secrets stop signing (only webhooks inside an overlap). */
  async overlapEnds(webhookIds: string[]): Promise<Map<string, Date>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.db.webhookSecret.groupBy({
      by: ['webhookId'],
      where: { webhookId: { in: webhookIds }, expiresAt: { gt: new Date() } },
      _max: { expiresAt: true },
    });
    return new Map(rows.filter((r) => r._max.expiresAt).map((r) => [r.webhookId, r._max.expiresAt!]));
  }
}
