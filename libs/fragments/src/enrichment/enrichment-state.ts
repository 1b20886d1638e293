/** The enrichment steps, in the order the worker runs them. */
export const ENRICHMENT_STEPS = ['summary', 'tags', 'embedding', 'graph'] as const;
export type EnrichmentStep = (typeof ENRICHMENT_STEPS)[number];

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

/** The payload of fragment.created / fragment.updated / fragment.enrichment_requested. */
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

/** The event the re-enrich route writes to the outbox (not a change of the fragment, so not `fragment.updated`). */
export const ENRICHMENT_REQUESTED_EVENT = 'fragment.enrichment_requested';
export const ENRICHMENT_EVENTS = ['fragment.created', 'fragment.updated', ENRICHMENT_REQUESTED_EVENT];
/**
 * INTERNAL event (not a webhook event kind, never sent to subscribers): written with the chunks
 * whenever the embedding step replaces them, payload `{fragmentId, workspaceId, version, chunks}`.
 * The search component syncs an external vector index (Qdrant) from it.
 */
export const FRAGMENT_EMBEDDED_EVENT = 'fragment.embedded';
/** The durable consumer name, also the `consumer` of its processed_events rows. */
export const ENRICHMENT_CONSUMER = 'fragments-enrichment';

/** The steps to run for an event: those it names, plus any still pending from an older version. */
export function stepsToRun(payload: FragmentEventPayload, state: EnrichmentState): EnrichmentStep[] {
  return ENRICHMENT_STEPS.filter((step) => {
    const current = state[step];
    if (current && current.version === payload.version && (current.state === 'done' || current.state === 'failed'))
      return false;
    return payload.needs.includes(step) || current?.state === 'pending';
  });
}
