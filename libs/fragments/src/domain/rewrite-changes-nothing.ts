/** What a fragment holds that a rewrite (bulk upsert, workspace import) may set. */
export interface RewritableFragment {
  title: string;
  content: string;
  fragmentTypeId: string;
  summary: string | null;
  tags: readonly string[];
}

/** What a rewrite sets: a summary or tags left out are the fragment's or enrichment's to keep. */
export interface Rewrite {
  title: string;
  content: string;
  fragmentTypeId: string;
  /** Empty, null or absent: not given (enrichment writes one). */
  summary?: string | null;
  /** Absent: not given. */
  tags?: readonly string[];
  /** Enrichment may add tags to the given ones. */
  enhanceTags: boolean;
}

/**
 * Whether writing `rewrite` over `row` would change nothing, so that importing the same data
 * again writes nothing: what the rewrite sets already holds. What it leaves to enrichment (no
 * summary; tags to add to) may have been generated since and does not count. Tags compare as a
 * set, trimmed and without blanks, as the fragments service stores them.
 */
export function rewriteChangesNothing(row: RewritableFragment, rewrite: Rewrite): boolean {
  if (row.title !== rewrite.title || row.content !== rewrite.content || row.fragmentTypeId !== rewrite.fragmentTypeId)
    return false;
  const summary = rewrite.summary?.trim() ? rewrite.summary : undefined;
  if (summary !== undefined && row.summary !== summary) return false;
  if (rewrite.tags === undefined) return true;
  const tags = [...new Set(rewrite.tags.map((t) => t.trim()).filter((t) => t !== ''))];
  if (!tags.every((t) => row.tags.includes(t))) return false;
  return rewrite.enhanceTags || tags.length === row.tags.length;
}
