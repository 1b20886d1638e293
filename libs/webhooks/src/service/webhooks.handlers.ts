import { Inject, Injectable } from '@nestjs/common';
import { WebhooksService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery/delivery-settings.js';
import { newSigningSecret } from './delivery/sign-delivery.js';
import { checkTarget, checkTargetCanonical, checkTargetText } from './targets/index.js';
import {
  SECRET_OVERLAP_DEFAULT_SECONDS,
  SECRET_OVERLAP_MAX_SECONDS,
  WEBHOOKS_PER_WORKSPACE_MAX,
} from '../webhooks-limits.js';
import { headersKeepingMasked, validEvents, validHeaders, validName } from './webhook-input.js';
import { openHeaders, sealHeaders, UnsealableSecretError, type HeaderPair } from './webhook-secrets.js';
import { webhookView } from './webhook-view.js';
import { WebhookRecords, webhookNotFound } from './webhook-records.js';
import { WebhooksRepository, type WebhookChanges } from '../persistence/webhooks.repository.js';

/**
 * Webhook configuration: a workspace-management action (`webhooks:manage`), so readers get
 * 403 or 404 as the policy says. Targets are checked here (SSRF rules) and again at every
 * delivery. Secrets are answered once, on create and on rotate.
 */
@Injectable()
export class WebhooksHandlers {
  constructor(
    private readonly webhooks: WebhooksRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(DELIVERY_SETTINGS) private readonly settings: DeliverySettings,
    private readonly gate: WorkspaceGate,
    private readonly records: WebhookRecords,
  ) {}

  @Handles(WebhooksService.method.listWebhooks)
  async list(input: RequestOf<typeof WebhooksService, 'listWebhooks'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'webhooks:manage');
    const rows = await this.webhooks.listForWorkspace(workspaceId);
    const overlaps = await this.records.overlapEnds(rows.map((r) => r.id));
    return { webhooks: rows.map((row) => webhookView(row, overlaps.get(row.id) ?? null)) };
  }

  @Handles(WebhooksService.method.createWebhook)
  async create(input: RequestOf<typeof WebhooksService, 'createWebhook'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'webhooks:manage');
    const name = validName(input.name);
    const events = validEvents(input.events);
    const headers = headersKeepingMasked(validHeaders(input.headers), []);
    checkTargetText(input.url);
    await checkTarget(input.url, this.settings.policy);
    checkTargetCanonical(input.url);
    const secret = newSigningSecret();
    const row = await this.webhooks.createWithSecret(
      {
        workspaceId,
        name,
        url: input.url,
        events,
        enabled: input.enabled,
        createdBy: userId,
        ...sealHeaders(this.box, headers),
      },
      this.box.seal(secret),
      WEBHOOKS_PER_WORKSPACE_MAX,
    );
    if (!row) {
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: `At most ${WEBHOOKS_PER_WORKSPACE_MAX} webhooks per workspace`,
      });
    }
    return { webhook: webhookView(row), secret };
  }

  @Handles(WebhooksService.method.getWebhook)
  async get(input: RequestOf<typeof WebhooksService, 'getWebhook'>, context: RequestContext) {
    const row = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    return { webhook: webhookView(row, (await this.records.overlapEnds([row.id])).get(row.id) ?? null) };
  }

  @Handles(WebhooksService.method.updateWebhook)
  async update(input: RequestOf<typeof WebhooksService, 'updateWebhook'>, context: RequestContext) {
    const current = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    const data: WebhookChanges = {};
    if (input.name !== undefined) data.name = validName(input.name);
    if (input.setEvents) data.events = validEvents(input.events);
    if (input.setHeaders) {
      // A value sent back as the mask keeps the stored one. Stored values that no longer open
      // (sealed under a master key since removed) keep nothing: the mask is refused for them, and
      // real values replace them, which is how an owner repairs such an endpoint.
      let stored: HeaderPair[] = [];
      try {
        stored = openHeaders(this.box, current.headersSealed);
      } catch (err) {
        if (!(err instanceof UnsealableSecretError)) throw err;
      }
      const headers = headersKeepingMasked(validHeaders(input.headers), stored);
      Object.assign(data, sealHeaders(this.box, headers));
    }
    if (input.url !== undefined && input.url !== current.url) {
      checkTargetText(input.url);
      await checkTarget(input.url, this.settings.policy);
      checkTargetCanonical(input.url);
      data.url = input.url;
    }
    if (input.enabled !== undefined) {
      data.enabled = input.enabled;
      // Turning an endpoint the platform disabled back on starts its failure clock again.
      if (input.enabled) Object.assign(data, { disabledReason: null, disabledAt: null, failingSince: null });
    }
    const row = await this.webhooks.update(current.id, data);
    if (!row) throw webhookNotFound(); // deleted since it was read
    return { webhook: webhookView(row, (await this.records.overlapEnds([row.id])).get(row.id) ?? null) };
  }

  @Handles(WebhooksService.method.deleteWebhook)
  async delete(input: RequestOf<typeof WebhooksService, 'deleteWebhook'>, context: RequestContext) {
    const row = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    // Deliveries and their history go with it (cascade): nothing is sent for it any more.
    if (!(await this.webhooks.delete(row.id))) throw webhookNotFound(); // a concurrent delete came first
    return {};
  }

  @Handles(WebhooksService.method.rotateWebhookSecret)
  async rotate(input: RequestOf<typeof WebhooksService, 'rotateWebhookSecret'>, context: RequestContext) {
    const current = await this.records.authorizedWebhook(context, input.workspaceId, input.webhookId);
    const overlap = input.overlapSeconds || SECRET_OVERLAP_DEFAULT_SECONDS;
    if (overlap < 0 || overlap > SECRET_OVERLAP_MAX_SECONDS) {
      throw invalidField('overlapSeconds', `must be between 1 and ${SECRET_OVERLAP_MAX_SECONDS}`);
    }
    const secret = newSigningSecret();
    const expiresAt = new Date(Date.now() + overlap * 1000);
    // The current secret signs until expiresAt; an older previous one stops now.
    if (!(await this.webhooks.rotateSecret(current.id, this.box.seal(secret), expiresAt))) throw webhookNotFound();
    return { webhook: webhookView(current, expiresAt), secret, previousSecretExpiresAt: expiresAt.toISOString() };
  }
}
