import type { EnrichmentStep } from './enrichment/enrichment-state.js';
import type { Gate } from './workspace-gate.js';

/**
 * The steps of `needs` the workspace's settings allow (docs/workspaces.md#settings):
 * `enrichment.summaries` off drops the AI summary, `enrichment.tags` off the AI tags (an
 * `enhanceTags` request included: the owner's setting wins over a writer's wish). A dropped step
 * is recorded `skipped`. Embedding and graph are no settings: search and the graph need them.
 */
export function allowedSteps(needs: readonly EnrichmentStep[], settings: Gate['enrichment']): EnrichmentStep[] {
  return needs.filter((step) => (step === 'summary' ? settings.summaries : step === 'tags' ? settings.tags : true));
}
