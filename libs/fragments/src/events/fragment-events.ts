import {
  ENRICHMENT_REQUESTED_EVENT,
  FRAGMENT_DELETED_EVENT,
  FRAGMENT_EMBEDDED_EVENT,
  type EnrichmentRequestedPayload,
  type EnrichmentStep,
  type FragmentChangedPayload,
  type FragmentEmbeddedPayload,
  type FragmentEventType,
  type FragmentSnapshot,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import type { NewOutboxEvent } from '@kw/platform-outbox';
import type { FragmentRow, FragmentText } from '../persistence/rows.js';
import { injectTraceHeaders } from '@kw/platform-tracing';

/** Row -> event snapshot: what consumers outside the component may know of a fragment (never its content). */
export function fragmentSnapshot(fragment: FragmentRow): FragmentSnapshot {
  return {
    id: fragment.id,
    key: fragment.key,
    title: fragment.title,
    fragmentTypeId: fragment.fragmentTypeId,
    tags: fragment.tags,
    status: fragment.status,
    version: fragment.version,
    createdVia: fragment.createdVia,
    createdBy: fragment.createdBy,
    updatedBy: fragment.updatedBy,
    createdAt: fragment.createdAt.toISOString(),
    updatedAt: fragment.updatedAt.toISOString(),
    archivedAt: fragment.archivedAt?.toISOString() ?? null,
  };
}

/**
 * The outbox row announcing a fragment change, written in the change's transaction (or
 * statement), so the event exists exactly when the change does. The relay publishes it to
 * enrichment, webhooks and search. `permanent` marks a deletion that removed the row (not an archive).
 */
export function fragmentChangedEvent(
  context: RequestContext,
  eventType: FragmentEventType,
  fragment: FragmentRow,
  needs: readonly EnrichmentStep[],
  options: { permanent?: boolean } = {},
): NewOutboxEvent & { payload: FragmentChangedPayload } {
  return {
    aggregateType: 'fragment',
    aggregateId: fragment.id,
    eventType,
    payload: {
      fragmentId: fragment.id,
      workspaceId: fragment.workspaceId,
      version: fragment.version,
      needs: [...needs],
      occurredAt: new Date().toISOString(),
      fragment: fragmentSnapshot(fragment),
      ...(eventType === FRAGMENT_DELETED_EVENT && { deletion: options.permanent ? 'permanent' : 'archived' }),
    },
    // The request's trace continues through the relay's producer span to every consumer.
    headers: injectTraceHeaders({ requestId: context.requestId }),
  };
}

/** The outbox row asking enrichment to run `needs` on the fragment's `version`. */
export function enrichmentRequestedEvent(
  fragment: { id: string; workspaceId: string; version: number },
  needs: EnrichmentStep[],
  occurredAt: string,
  headers: Record<string, string> = {},
): NewOutboxEvent & { payload: EnrichmentRequestedPayload } {
  return {
    aggregateType: 'fragment',
    aggregateId: fragment.id,
    eventType: ENRICHMENT_REQUESTED_EVENT,
    payload: {
      fragmentId: fragment.id,
      workspaceId: fragment.workspaceId,
      version: fragment.version,
      needs,
      occurredAt,
    },
    headers,
  };
}

/** The internal outbox row written with a fragment's new chunks (search syncs an external vector index from it). */
export function fragmentEmbeddedEvent(
  fragment: Pick<FragmentText, 'id' | 'workspaceId' | 'version' | 'createdBy'>,
  chunks: number,
  generated: NonNullable<FragmentEmbeddedPayload['generated']> = [],
  tokens: NonNullable<FragmentEmbeddedPayload['tokens']> = {},
): NewOutboxEvent & { payload: FragmentEmbeddedPayload } {
  return {
    aggregateType: 'fragment',
    aggregateId: fragment.id,
    eventType: FRAGMENT_EMBEDDED_EVENT,
    payload: {
      fragmentId: fragment.id,
      workspaceId: fragment.workspaceId,
      version: fragment.version,
      chunks,
      createdBy: fragment.createdBy,
      generated,
      // Only when a step reported tokens (the built-in provider never does).
      ...(Object.keys(tokens).length > 0 ? { tokens } : {}),
      occurredAt: new Date().toISOString(),
    },
  };
}
