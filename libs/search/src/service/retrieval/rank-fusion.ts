export interface FusedHit {
  fragmentId: string;
  score: number;
  /** The retrievers whose list held the fragment, in the order given. */
  matchedBy: string[];
}

/** One retriever's candidates, best first, with non-negative scores, and its share of the fusion. */
export interface WeightedList {
  retriever: string;
  weight: number;
  hits: { fragmentId: string; score: number }[];
}

/**
 * Score-aware fusion of hybrid search: a convex combination of each retriever's scores, each
 * divided by its list's best score (BM25 has no fixed scale; similarity does, but a model's
 * typical range varies), so a fragment scores sum(weight x score / best of its list). Unlike
 * reciprocal rank fusion it keeps how far apart the candidates are: a clear keyword winner stays
 * ahead of a fragment the weak retriever ranked first. Measured against RRF on NFCorpus in
 * docs/search.md ("Relevance"). Ties are broken by fragment id, so paging is deterministic.
 */
export function fuseByWeightedScore(lists: WeightedList[]): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const { retriever, weight, hits } of lists) {
    const best = hits.reduce((max, h) => Math.max(max, h.score), 0);
    for (const { fragmentId, score } of hits) {
      const hit = fused.get(fragmentId) ?? { fragmentId, score: 0, matchedBy: [] };
      hit.score += best > 0 ? (weight * Math.max(score, 0)) / best : 0;
      hit.matchedBy.push(retriever);
      fused.set(fragmentId, hit);
    }
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.fragmentId < b.fragmentId ? -1 : a.fragmentId > b.fragmentId ? 1 : 0),
  );
}

/** The semantic share of hybrid search: configured, or by how good the provider's vectors are. */
export function semanticWeight(configured: number | undefined, aiProvider: string): number {
  if (configured !== undefined) return configured;
  return aiProvider === 'builtin' ? 0.2 : 0.5;
}
