import {
  ENRICHMENT_REQUESTED_EVENT,
  ENRICHMENT_STEPS,
  FRAGMENT_CREATED_EVENT,
  FRAGMENT_UPDATED_EVENT,
  type EnrichmentStep,
} from '@kw/contracts';

export { ENRICHMENT_STEPS, type EnrichmentStep };

/**
 * One step's state in `fragments.enrichment` (jsonb): `pending` when queued, `skipped` when not
 * needed (user summary or tags), `done` or `failed` once the worker is through with it, for the
 * fragment `version` it ran on.
 */
export interface StepState {
  state: 'pending' | 'skipped' | 'done' | 'failed';
  attempts: number;
  /** Absent while pending. */
  version?: number;
  /** The last error of a failed step. */
  error?: string;
  at: string;
}

export type EnrichmentState = Partial<Record<EnrichmentStep, StepState>>;

export function isStep(value: unknown): value is EnrichmentStep {
  return typeof value === 'string' && (ENRICHMENT_STEPS as readonly string[]).includes(value);
}

export function readEnrichment(value: unknown): EnrichmentState {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as EnrichmentState) : {};
}

/** What the worker reads of fragment.created / fragment.updated / fragment.enrichment_requested. */
export interface FragmentEventPayload {
  fragmentId: string;
  workspaceId: string;
  version: number;
  needs: EnrichmentStep[];
}

export function readFragmentEventPayload(payload: Record<string, unknown>): FragmentEventPayload | undefined {
  const { fragmentId, workspaceId, version, needs } = payload;
  if (typeof fragmentId !== 'string' || typeof workspaceId !== 'string' || typeof version !== 'number')
    return undefined;
  return { fragmentId, workspaceId, version, needs: Array.isArray(needs) ? needs.filter(isStep) : [] };
}

export const ENRICHMENT_EVENTS = [FRAGMENT_CREATED_EVENT, FRAGMENT_UPDATED_EVENT, ENRICHMENT_REQUESTED_EVENT];
/** The durable consumer name, also the `consumer` of its processed_events rows. */
export const ENRICHMENT_CONSUMER = 'fragments-enrichment';

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

/** The steps to run for an event: those it names, plus any still pending from an older version. */
export function stepsToRun(payload: FragmentEventPayload, state: EnrichmentState): EnrichmentStep[] {
  return ENRICHMENT_STEPS.filter((step) => {
    const current = state[step];
    if (current && current.version === payload.version && (current.state === 'done' || current.state === 'failed'))
      return false;
    return payload.needs.includes(step) || current?.state === 'pending';
  });
}

/** The steps a re-enrich request queues: the failed ones, or every step that is not skipped. */
export function stepsToRequeue(state: EnrichmentState): EnrichmentStep[] {
  const failed = ENRICHMENT_STEPS.filter((s) => state[s]?.state === 'failed');
  return failed.length > 0 ? failed : ENRICHMENT_STEPS.filter((s) => state[s]?.state !== 'skipped');
}

/** The steps a fragment left `processing` at a restart still needs: not skipped, not done for its version. */
export function stepsToRecover(state: EnrichmentState, version: number): EnrichmentStep[] {
  return ENRICHMENT_STEPS.filter(
    (s) => state[s]?.state !== 'skipped' && !(state[s]?.state === 'done' && state[s]?.version === version),
  );
}
