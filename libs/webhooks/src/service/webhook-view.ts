import type { MessageInitShape } from '@bufbuild/protobuf';
import type { DeliveryAttemptSchema, WebhookDeliverySchema, WebhookSchema } from '@kw/contracts';
import { messageIdOf } from './delivery/sign-delivery.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from '../persistence/rows.js';

/** Header values are never shown again after they are set. */
export const MASKED_VALUE = '********';

export const iso = (d: Date | null | undefined): string => d?.toISOString() ?? '';

export function webhookView(
  row: WebhookRow,
  secretOverlapUntil: Date | null = null,
): MessageInitShape<typeof WebhookSchema> {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    url: row.url,
    events: row.events,
    headers: row.headerNames.map((name) => ({ name, value: MASKED_VALUE })),
    enabled: row.enabled,
    disabledReason: row.disabledReason ?? '',
    disabledAt: iso(row.disabledAt),
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    lastSuccessAt: iso(row.lastSuccessAt),
    failingSince: iso(row.failingSince),
    secretOverlapUntil: iso(secretOverlapUntil),
  };
}

export function deliveryView(
  row: DeliveryRow,
  attempts: AttemptRow[] = [],
): MessageInitShape<typeof WebhookDeliverySchema> {
  return {
    id: row.id,
    webhookId: row.webhookId,
    messageId: messageIdOf(row.id),
    eventType: row.eventType,
    eventId: row.eventId ?? '',
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : '',
    lastStatusCode: row.lastStatus ?? 0,
    lastFailure: row.lastFailure ?? '',
    createdAt: iso(row.createdAt),
    completedAt: iso(row.completedAt),
    test: row.test,
    attemptHistory: attempts.map(attemptView),
  };
}

function attemptView(row: AttemptRow): MessageInitShape<typeof DeliveryAttemptSchema> {
  return {
    number: row.number,
    startedAt: iso(row.startedAt),
    durationMs: row.durationMs,
    statusCode: row.status ?? 0,
    failure: row.failure ?? '',
    message: row.message ?? '',
  };
}
