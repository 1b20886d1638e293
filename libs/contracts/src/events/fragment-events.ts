// Events the fragments component writes to its outbox (JSON payloads on the bus), read by the
// enrichment worker, webhooks and search. Declared here once: writer and readers import them.

/** The enrichment steps, in the order the worker runs them. */
export const ENRICHMENT_STEPS = ['summary', 'tags', 'embedding', 'graph'] as const;
export type EnrichmentStep = (typeof ENRICHMENT_STEPS)[number];

export const FRAGMENT_CREATED_EVENT = 'fragment.created';
export const FRAGMENT_UPDATED_EVENT = 'fragment.updated';
export const FRAGMENT_DELETED_EVENT = 'fragment.deleted';
/** The changes of a fragment, announced to webhooks, enrichment and search. */
export type FragmentEventType =
  typeof FRAGMENT_CREATED_EVENT | typeof FRAGMENT_UPDATED_EVENT | typeof FRAGMENT_DELETED_EVENT;

/** The event the re-enrich route writes to the outbox (not a change of the fragment, so not `fragment.updated`). */
export const ENRICHMENT_REQUESTED_EVENT = 'fragment.enrichment_requested';
/**
 * INTERNAL event (not a webhook event kind, never sent to subscribers): written with the chunks
 * whenever the embedding step replaces them. The search component syncs an external vector
 * index (Qdrant) from it.
 */
export const FRAGMENT_EMBEDDED_EVENT = 'fragment.embedded';

/**
 * What consumers outside the fragments component may know of a fragment at the change: its
 * metadata, never its content (webhook payloads carry this snapshot; receivers fetch the
 * content with their own credentials).
 */
export type FragmentSnapshot = {
  id: string;
  key: string | null;
  title: string;
  fragmentTypeId: string;
  tags: string[];
  status: string;
  version: number;
  createdVia: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
};

/** The payload of fragment.created / fragment.updated / fragment.deleted. */
export type FragmentChangedPayload = {
  fragmentId: string;
  workspaceId: string;
  version: number;
  /** The enrichment steps the change calls for (none when the text is unchanged). */
  needs: EnrichmentStep[];
  occurredAt: string;
  fragment: FragmentSnapshot;
  /** fragment.deleted only: `archived` (restorable by owners) or `permanent`. */
  deletion?: 'archived' | 'permanent';
};

/** The payload of fragment.enrichment_requested. */
export type EnrichmentRequestedPayload = {
  fragmentId: string;
  workspaceId: string;
  version: number;
  needs: EnrichmentStep[];
  occurredAt: string;
};

/** The payload of the internal fragment.embedded event. */
export type FragmentEmbeddedPayload = {
  fragmentId: string;
  workspaceId: string;
  version: number;
  /** How many chunks the embedding step wrote. */
  chunks: number;
  /** The fragment's creator, on whose behalf it was embedded (the chat component records the usage). Absent in events written before it existed. */
  createdBy?: string;
  /** The other model calls of the same enrichment pass (usage counts them); absent in older events. */
  generated?: Array<'summary' | 'tags' | 'graph'>;
  /**
   * The tokens the provider reported for this pass's model calls, per step (usage records and
   * plan budgets count them). A step absent here reported none (the built-in provider never
   * does); absent in older events.
   */
  tokens?: Partial<Record<'embedding' | 'summary' | 'tags' | 'graph', { input: number; output: number }>>;
  occurredAt: string;
};
