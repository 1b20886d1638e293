import type { RequestContext } from '@kw/platform-context';
import type { DataTx, FragmentRow } from './fragments-db.js';

export type EnrichmentStep = 'summary' | 'tags' | 'embedding' | 'graph';
export type FragmentEventType = 'fragment.created' | 'fragment.updated' | 'fragment.deleted';

/** The steps enrichment must run: a user summary skips 'summary', user tags skip 'tags' unless enhanceTags. */
export function enrichmentNeeds(hasUserSummary: boolean, hasUserTags: boolean, enhanceTags: boolean): EnrichmentStep[] {
  const needs: EnrichmentStep[] = [];
  if (!hasUserSummary) needs.push('summary');
  if (!hasUserTags || enhanceTags) needs.push('tags');
  needs.push('embedding', 'graph');
  return needs;
}

/** The initial per-step state the enrichment pipeline then advances. */
export function pendingEnrichment(
  needs: readonly EnrichmentStep[],
  at: Date,
): Record<EnrichmentStep, { state: string; attempts: number; at: string }> {
  const state = (step: EnrichmentStep) => ({
    state: needs.includes(step) ? 'pending' : 'skipped',
    attempts: 0,
    at: at.toISOString(),
  });
  return { summary: state('summary'), tags: state('tags'), embedding: state('embedding'), graph: state('graph') };
}

/**
 * What consumers outside the fragments component may know of a fragment at the change: its
 * metadata, never its content (webhook payloads carry this snapshot; receivers fetch the
 * content with their own credentials).
 */
export function fragmentSnapshot(fragment: FragmentRow) {
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

/** The outbox row announcing a fragment change (see recordFragmentEvent). */
export function fragmentEvent(
  context: RequestContext,
  eventType: FragmentEventType,
  fragment: FragmentRow,
  needs: readonly EnrichmentStep[],
  options: { permanent?: boolean } = {},
) {
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
      ...(eventType === 'fragment.deleted' && { deletion: options.permanent ? 'permanent' : 'archived' }),
    },
    headers: { requestId: context.requestId },
  };
}

/**
 * Writes the outbox row announcing a fragment change, in the caller's transaction, so the
 * event exists exactly when the change does. The relay publishes it to enrichment, webhooks
 * and search. `permanent` marks a deletion that removed the row (not an archive).
 */
export async function recordFragmentEvent(
  tx: DataTx,
  context: RequestContext,
  eventType: FragmentEventType,
  fragment: FragmentRow,
  needs: readonly EnrichmentStep[],
  options: { permanent?: boolean } = {},
): Promise<void> {
  await tx.outboxEvent.create({ data: fragmentEvent(context, eventType, fragment, needs, options) });
}
