import { Injectable } from '@nestjs/common';
import { WebhooksService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { DeliveryAttempter } from './delivery/attempt-delivery.js';
import { DeliveryWorker } from '../events/delivery-worker.js';
import { samplePayload } from './delivery/event-payload.js';
import { DELIVERIES_LIMIT_DEFAULT, DELIVERIES_LIMIT_MAX } from '../webhooks-limits.js';
import { validEventType } from './webhook-input.js';
import { isUuid } from '@kw/platform-ids';
import { deliveryNotFound, webhookNotFound, WebhookRecords } from './webhook-records.js';
import { deliveryView } from './webhook-view.js';
import { DeliveriesRepository } from '../persistence/deliveries.repository.js';
import { WebhooksRepository } from '../persistence/webhooks.repository.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';

const DELIVERY_STATUSES = new Set(['pending', 'delivering', 'succeeded', 'failed', 'cancelled']);

/** Delivery history, redelivery and the test trigger (all `webhooks:manage`). */
@Injectable()
export class DeliveriesHandlers {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly gate: WorkspaceGate,
    private readonly records: WebhookRecords,
    private readonly attempter: DeliveryAttempter,
    private readonly worker: DeliveryWorker,
  ) {}

  @Handles(WebhooksService.method.listWebhookDeliveries)
  async list(input: RequestOf<typeof WebhooksService, 'listWebhookDeliveries'>, context: RequestContext) {
    const webhook = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    if (input.status && !DELIVERY_STATUSES.has(input.status)) {
      throw invalidField('status', `must be one of: ${[...DELIVERY_STATUSES].join(', ')}`);
    }
    const take = Math.min(Math.max(input.limit || DELIVERIES_LIMIT_DEFAULT, 1), DELIVERIES_LIMIT_MAX);
    const { rows, totalCount } = await this.deliveries.pageForWebhook(
      webhook.id,
      input.status || undefined,
      take,
      Math.max(input.offset, 0),
    );
    return { deliveries: rows.map(({ attemptLog, ...row }) => deliveryView(row, attemptLog)), totalCount };
  }

  @Handles(WebhooksService.method.getWebhookDelivery)
  async get(input: RequestOf<typeof WebhooksService, 'getWebhookDelivery'>, context: RequestContext) {
    const { attemptLog, ...row } = await this.delivery(context, input);
    return { delivery: deliveryView(row, attemptLog) };
  }

  /** One more attempt now, with the same webhook-id; a failure then follows the remaining schedule. */
  @Handles(WebhooksService.method.redeliverWebhookDelivery)
  async redeliver(input: RequestOf<typeof WebhooksService, 'redeliverWebhookDelivery'>, context: RequestContext) {
    const { webhook, row: current } = await this.deliveryOfWebhook(context, input);
    // Checked again by the requeue itself (the endpoint may be disabled meanwhile).
    if (!webhook.enabled || !(await this.deliveries.requeue(current.id))) {
      const stillEnabled =
        webhook.enabled && (await this.webhooks.findInWorkspace(webhook.id, webhook.workspaceId))?.enabled;
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: stillEnabled
          ? 'The delivery is being attempted right now; try again when it finishes'
          : 'The endpoint is disabled; enable it to redeliver',
      });
    }
    this.worker.poke();
    const { attemptLog, ...row } = await this.deliveries.getWithAttempts(current.id);
    return { delivery: deliveryView(row, attemptLog) };
  }

  /**
   * Sends a sample event now to one endpoint (even a disabled one: test before enabling) or to
   * every enabled endpoint that selected the kind; one attempt each, recorded as test deliveries.
   */
  @Handles(WebhooksService.method.triggerWebhooks)
  async trigger(input: RequestOf<typeof WebhooksService, 'triggerWebhooks'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'webhooks:manage');
    const eventType = validEventType(input.eventType);
    if (input.webhookId && !isUuid(input.webhookId)) throw webhookNotFound();
    const hooks = input.webhookId
      ? await this.webhooks.findInWorkspace(input.webhookId, workspaceId).then((row) => (row ? [row] : []))
      : await this.webhooks.listSubscribed(workspaceId, eventType);
    if (input.webhookId && hooks.length === 0) throw webhookNotFound();
    const body = JSON.stringify(samplePayload(eventType, workspaceId));
    const outcomes = await Promise.all(
      hooks.map(async (webhook) => {
        // Claimed from the start (delivering + lease) so the worker leaves it to this request.
        const delivery = await this.deliveries.createTest({
          webhookId: webhook.id,
          workspaceId,
          eventType: eventType,
          body,
          leaseUntil: new Date(Date.now() + 60_000),
        });
        const outcome = await this.attempter.attempt(delivery, webhook);
        return {
          webhookId: webhook.id,
          deliveryId: delivery.id,
          messageId: outcome.messageId,
          ok: outcome.ok,
          statusCode: outcome.status ?? 0,
          durationMs: Math.round(outcome.durationMs),
          failure: outcome.failure ?? '',
          message: outcome.message ?? '',
        };
      }),
    );
    return { outcomes };
  }

  private async delivery(
    context: RequestContext,
    input: { workspaceId: string; webhookId: string; deliveryId: string },
  ) {
    return (await this.deliveryOfWebhook(context, input)).row;
  }

  private async deliveryOfWebhook(
    context: RequestContext,
    input: { workspaceId: string; webhookId: string; deliveryId: string },
  ) {
    const webhook = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    const row = isUuid(input.deliveryId) ? await this.deliveries.findOfWebhook(input.deliveryId, webhook.id) : null;
    if (!row) throw deliveryNotFound();
    return { webhook, row };
  }
}
