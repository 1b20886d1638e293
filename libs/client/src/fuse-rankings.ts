import type { SearchHit } from './types.js';

/** The usual reciprocal-rank constant: a hit's weight is 1 / (K + rank). */
const K = 60;

/**
 * Merges ranked lists from different planes into one, by reciprocal rank: each list's scores
 * are its own (normalised per query), so only ranks compare. Ties keep the earlier list first.
 */
export function fuseRankings(lists: SearchHit[][], limit: number): SearchHit[] {
  const fused = new Map<string, { hit: SearchHit; score: number; order: number }>();
  let order = 0;
  for (const list of lists)
    list.forEach((hit, rank) => {
      const key = `${hit.workspaceId}/${hit.fragmentId}`;
      const entry = fused.get(key) ?? { hit, score: 0, order: order++ };
      entry.score += 1 / (K + rank + 1);
      fused.set(key, entry);
    });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map((e) => e.hit);
}
