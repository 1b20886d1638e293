import type { DataPrismaClient } from '@kw/platform-persistence';

/** Rows of the component's tables, as the repositories return them. */
export type FragmentRow = Awaited<ReturnType<DataPrismaClient['fragment']['findUniqueOrThrow']>>;
export type FragmentTypeRow = Awaited<ReturnType<DataPrismaClient['fragmentType']['findUniqueOrThrow']>>;
export type CollectionRow = Awaited<ReturnType<DataPrismaClient['collection']['findUniqueOrThrow']>>;

/** A collection with the number of fragments it holds. */
export type CountedCollectionRow = CollectionRow & { fragmentCount: number };

/** A fragment's membership in a collection (id and name of the collection). */
export interface CollectionLink {
  fragmentId: string;
  collection: { id: string; name: string };
}

/** What the enrichment steps read of a fragment (as loaded when the event was handled). */
export interface FragmentText {
  id: string;
  workspaceId: string;
  title: string;
  content: string;
  version: number;
  summarySource: string | null;
  enhanceTags: boolean;
}

/** A fragment left `processing` (what the in-process recovery requeues). */
export interface ProcessingFragment {
  id: string;
  workspaceId: string;
  version: number;
  enrichment: unknown;
}
