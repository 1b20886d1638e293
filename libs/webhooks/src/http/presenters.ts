import type { DeliveryOutcome, Webhook, WebhookDelivery } from '@kw/contracts';
import type { DeliveryDto, DeliveryOutcomeDto, WebhookDto } from './dto/webhook.dto.js';

const orNull = (s: string): string | null => (s === '' ? null : s);
const codeOrNull = (n: number): number | null => (n === 0 ? null : n);

export function webhookJson(w: Webhook): WebhookDto {
  return {
    id: w.id,
    workspaceId: w.workspaceId,
    name: w.name,
    url: w.url,
    events: w.events,
    headers: Object.fromEntries(w.headers.map((h) => [h.name, h.value])),
    enabled: w.enabled,
    disabledReason: orNull(w.disabledReason),
    disabledAt: orNull(w.disabledAt),
    lastSuccessAt: orNull(w.lastSuccessAt),
    failingSince: orNull(w.failingSince),
    secretOverlapUntil: orNull(w.secretOverlapUntil),
    createdBy: w.createdBy,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

export function deliveryJson(d: WebhookDelivery): DeliveryDto {
  return {
    id: d.id,
    webhookId: d.webhookId,
    messageId: d.messageId,
    eventType: d.eventType,
    eventId: orNull(d.eventId),
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: orNull(d.nextAttemptAt),
    lastStatusCode: codeOrNull(d.lastStatusCode),
    lastFailure: orNull(d.lastFailure),
    test: d.test,
    createdAt: d.createdAt,
    completedAt: orNull(d.completedAt),
    attemptHistory: d.attemptHistory.map((a) => ({
      number: a.number,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      statusCode: codeOrNull(a.statusCode),
      failure: orNull(a.failure),
      message: orNull(a.message),
    })),
  };
}

export function outcomeJson(o: DeliveryOutcome): DeliveryOutcomeDto {
  return {
    webhookId: o.webhookId,
    deliveryId: o.deliveryId,
    messageId: o.messageId,
    ok: o.ok,
    statusCode: codeOrNull(o.statusCode),
    durationMs: o.durationMs,
    failure: orNull(o.failure),
    message: orNull(o.message),
  };
}

export function headerList(headers: Record<string, string> | null | undefined): { name: string; value: string }[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
}
