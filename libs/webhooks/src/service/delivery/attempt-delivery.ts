import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import { checkTarget, sendToTarget, TargetConnections, type CheckedTarget, type SendResult } from '../targets/index.js';
import { openHeaders, signingSecrets, UnsealableSecretError } from '../webhook-secrets.js';
import { DeliveriesRepository } from '../../persistence/deliveries.repository.js';
import type { DeliveryRow, WebhookRow } from '../../persistence/rows.js';
import { WebhooksRepository } from '../../persistence/webhooks.repository.js';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery-settings.js';
import { EndpointHealth } from './endpoint-health.js';
import { honouredRetryAfter, nextAttemptDelay } from './retry-schedule.js';
import { messageIdOf, signedHeaders } from './sign-delivery.js';

const USER_AGENT = 'kw-webhooks/1 (+https://www.standardwebhooks.com)';

export interface AttemptOutcome extends SendResult {
  deliveryId: string;
  messageId: string;
  /** The delivery's state after this attempt. */
  deliveryStatus: string;
}

/** What every delivery to one endpoint needs, worked out once per batch. */
export interface PreparedEndpoint {
  /** The checked target, or why the target is refused now. */
  target: CheckedTarget | { refused: string; checkMs: number };
  /** Configured authentication headers with the fixed ones; the signature is added per delivery. */
  headers: Record<string, string>;
  secrets: string[];
  /**
   * Why the endpoint's sealed values (signing secrets, header values) do not open: sealed under a
   * master key that is no longer configured. Every delivery to it then fails as `secret`.
   */
  unsealable?: string;
}

/** What a delivery to an endpoint whose sealed values do not open records (no secret in it). */
const UNSEALABLE =
  "the endpoint's signing secret or header values do not open with the configured master keys " +
  '(SECRETS_ENCRYPTION_KEY changed: restore the previous key as SECRETS_ENCRYPTION_KEY_PREVIOUS and run npm run vault:rewrap, or rotate the secret and set the headers again)';

/**
 * One attempt of one delivery: re-checks the target (DNS may have changed since it was
 * configured), signs with every secret still signing, sends to the checked address only,
 * and records the attempt, the delivery's next state and the endpoint's health together.
 */
@Injectable()
export class DeliveryAttempter {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(DELIVERY_SETTINGS) private readonly settings: DeliverySettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly health: EndpointHealth,
    private readonly connections: TargetConnections,
  ) {}

  /**
   * Re-checks the endpoint's target (DNS may have changed since it was configured) and opens
   * its headers and signing secrets: once for all the deliveries to it that a batch holds.
   */
  async prepare(webhook: WebhookRow): Promise<PreparedEndpoint> {
    const headers: Record<string, string> = {};
    let unsealable = false;
    try {
      for (const { name, value } of openHeaders(this.box, webhook.headersSealed)) headers[name] = value;
    } catch (err) {
      if (!(err instanceof UnsealableSecretError)) throw err;
      unsealable = true;
    }
    Object.assign(headers, { 'content-type': 'application/json', 'user-agent': USER_AGENT });
    // Together: name resolution may take seconds, and the secrets' read must not wait for it.
    const [target, secrets] = await Promise.all([
      this.checkedTarget(webhook.url),
      signingSecrets(this.webhooks, this.box, webhook.id).catch((err: unknown) => {
        if (!(err instanceof UnsealableSecretError)) throw err;
        unsealable = true;
        return [];
      }),
    ]);
    if (!unsealable) return { target, headers, secrets };
    this.logger.error({ webhookId: webhook.id }, `webhook delivery impossible: ${UNSEALABLE}`);
    return { target, headers: {}, secrets: [], unsealable: UNSEALABLE };
  }

  private async checkedTarget(url: string): Promise<PreparedEndpoint['target']> {
    const started = performance.now();
    try {
      return await checkTarget(url, this.settings.policy);
    } catch (err) {
      return { refused: (err as Error).message, checkMs: performance.now() - started };
    }
  }

  async attempt(
    delivery: DeliveryRow,
    webhook: WebhookRow,
    endpoint: PreparedEndpoint | Promise<PreparedEndpoint> = this.prepare(webhook),
  ): Promise<AttemptOutcome> {
    const startedAt = new Date();
    const messageId = messageIdOf(delivery.id);
    const result = await this.send(webhook.id, delivery, await endpoint, messageId);
    const number = delivery.attempts + 1;
    const retryIn =
      result.ok || result.status === 410 || delivery.test
        ? null
        : nextAttemptDelay(this.settings.schedule, number, honouredRetryAfter(result.status, result.retryAfterMs));
    const status = result.ok ? 'succeeded' : retryIn === null ? 'failed' : 'pending';
    const failure = result.ok
      ? null
      : result.failure === 'status'
        ? `HTTP ${result.status}`
        : (result.failure ?? 'failed');
    await this.deliveries.recordAttempt(
      delivery.id,
      {
        number,
        startedAt,
        durationMs: Math.round(result.durationMs),
        status: result.status ?? null,
        failure: result.ok ? null : (result.failure ?? null),
        message: result.message?.slice(0, 500) ?? null,
      },
      {
        status,
        attempts: number,
        lastStatus: result.status ?? null,
        lastFailure: failure,
        nextAttemptAt: retryIn === null ? delivery.nextAttemptAt : new Date(Date.now() + retryIn),
        completedAt: status === 'pending' ? null : new Date(),
      },
    );
    const level = result.ok ? 'debug' : 'info';
    this.logger[level](
      {
        webhookId: webhook.id,
        deliveryId: delivery.id,
        attempt: number,
        status: result.status,
        failure: result.failure,
        next: status,
      },
      'webhook delivery attempted',
    );
    if (!delivery.test) await this.health.record(webhook, result);
    return { ...result, deliveryId: delivery.id, messageId, deliveryStatus: status };
  }

  private async send(
    webhookId: string,
    delivery: DeliveryRow,
    endpoint: PreparedEndpoint,
    messageId: string,
  ): Promise<SendResult> {
    const { target } = endpoint;
    // Never sent unsigned or without its headers: a failed attempt like any other, so the
    // delivery follows the retry schedule and the endpoint's failing clock runs.
    if (endpoint.unsealable) return { ok: false, durationMs: 0, failure: 'secret', message: endpoint.unsealable };
    if ('refused' in target)
      return { ok: false, durationMs: target.checkMs, failure: 'refused', message: target.refused };
    return sendToTarget({
      target,
      headers: { ...endpoint.headers, ...signedHeaders(messageId, delivery.body, endpoint.secrets) },
      body: delivery.body,
      timeoutMs: this.settings.timeoutMs,
      ca: this.settings.ca,
      agent: this.connections.agentFor(webhookId, target),
    });
  }
}
