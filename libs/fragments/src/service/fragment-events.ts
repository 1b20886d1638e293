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
export function pendingEnrichment(needs: readonly EnrichmentStep[], at: Date): Record<EnrichmentStep, { state: string; attempts: number; at: string }> {
  const state = (step: EnrichmentStep) => ({ state: needs.includes(step) ? 'pending' : 'skipped', attempts: 0, at: at.toISOString() });
  return { summary: state('summary'), tags: state('tags'), embedding: state('embedding'), graph: state('graph') };
}

/**
 * Writes the outbox row announcing a fragment change, in the caller's transaction, so the
 * event exists exactly when the change does. The enrichment relay publishes it.
 */
export async function recordFragmentEvent(tx: DataTx, context: RequestContext, eventType: FragmentEventType, fragment: FragmentRow, needs: readonly EnrichmentStep[]): Promise<void> {
  await tx.outboxEvent.create({
    data: {
      aggregateType: 'fragment',
      aggregateId: fragment.id,
      eventType,
      payload: { fragmentId: fragment.id, workspaceId: fragment.workspaceId, version: fragment.version, needs: [...needs], occurredAt: new Date().toISOString() },
      headers: { requestId: context.requestId },
    },
  });
}
