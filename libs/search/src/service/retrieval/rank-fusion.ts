/** Reciprocal rank fusion's damping constant (Cormack et al. 2009). */
export const RRF_K = 60;

export interface FusedHit {
  fragmentId: string;
  score: number;
  /** The retrievers whose list held the fragment, in the order given. */
  matchedBy: string[];
}

/**
 * Reciprocal rank fusion: score = sum over lists of 1 / (RRF_K + rank), rank from 1. It needs
 * no score calibration between retrievers (ts_rank and cosine are not comparable). Ties are
 * broken by fragment id, so the order (and therefore paging) is deterministic.
 */
export function fuseByReciprocalRank(lists: Record<string, { fragmentId: string }[]>): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const [retriever, list] of Object.entries(lists)) {
    list.forEach(({ fragmentId }, index) => {
      const hit = fused.get(fragmentId) ?? { fragmentId, score: 0, matchedBy: [] };
      hit.score += 1 / (RRF_K + index + 1);
      hit.matchedBy.push(retriever);
      fused.set(fragmentId, hit);
    });
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.fragmentId < b.fragmentId ? -1 : a.fragmentId > b.fragmentId ? 1 : 0),
  );
}
