import { Inject, Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import type { SendResult } from '../targets/index.js';
import type { WebhookRow } from '../../persistence/rows.js';
import { WebhooksRepository } from '../../persistence/webhooks.repository.js';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery-settings.js';

export type DisabledReason = 'gone' | 'failing';

/**
 * An endpoint's health across deliveries: a success clears the failure clock; 410 Gone
 * disables it at once; failing for WEBHOOKS_DISABLE_AFTER_HOURS disables it. Disabling
 * cancels its pending deliveries and notifies the workspace's owners.
 */
@Injectable()
export class EndpointHealth {
  constructor(
    private readonly webhooks: WebhooksRepository,
    @Inject(DELIVERY_SETTINGS) private readonly settings: DeliverySettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly client: ServiceClient,
  ) {}

  async record(webhook: WebhookRow, result: SendResult): Promise<void> {
    const now = new Date();
    if (result.ok) {
      await this.webhooks.recordSuccess(webhook.id, now);
      return;
    }
    if (result.status === 410) return this.disable(webhook, 'gone');
    // The clock starts at the first failure after a success (set once, by whichever attempt is first).
    await this.webhooks.startFailureClock(webhook.id, now);
    const failingSince = webhook.failingSince ?? now;
    if (now.getTime() - failingSince.getTime() >= this.settings.disableAfterMs) await this.disable(webhook, 'failing');
  }

  private async disable(webhook: WebhookRow, reason: DisabledReason): Promise<void> {
    const now = new Date();
    if (!(await this.webhooks.disable(webhook.id, reason, now))) return;
    this.logger.warn({ webhookId: webhook.id, workspaceId: webhook.workspaceId, reason }, 'webhook endpoint disabled');
    // Best effort, outside any transaction: a Leaf has no workspaces component to tell.
    await this.client
      .call(WorkspacesService.method.notifyWorkspaceOwners, {
        workspaceId: webhook.workspaceId,
        kind: 'webhook.disabled',
        payloadJson: JSON.stringify({
          webhookId: webhook.id,
          webhookName: webhook.name,
          reason,
          disabledAt: now.toISOString(),
        }),
      })
      .catch((err: unknown) =>
        this.logger.warn({ err, webhookId: webhook.id }, 'could not notify the workspace owners of a disabled webhook'),
      );
  }
}
