/** A candidate of one retriever: a fragment, a file, whatever the caller ranks. */
export interface ScoredId {
  id: string;
  score: number;
}

export interface FusedId {
  id: string;
  score: number;
  /** The retrievers whose list held the candidate, in the order given. */
  matchedBy: string[];
}

/**
 * How a list's scores are brought to [0, 1] before they are weighed (measured in docs/search.md,
 * "How each list is scaled"):
 * - `best`: divided by the list's best score. For BM25, whose zero means "none of the words".
 * - `range`: min-max over the list, its worst candidate 0 and its best 1. For similarity: a
 *   model's cosines sit in a narrow band (0.7-0.9 for some, 0.3-0.6 for others; the built-in
 *   vectors' too when a long query shares words with most texts), which divided by the best
 *   would all be near 1, so the list would barely order anything and a candidate missing from
 *   it would lose a large constant (it counts 0). Over the range the fusion is the same
 *   whatever band the similarities use.
 */
export type ScoreScale = 'best' | 'range';

/** One retriever's candidates, best first, with non-negative scores, and its share of the fusion. */
export interface WeightedList {
  retriever: string;
  weight: number;
  hits: ScoredId[];
  /** Default `best`. */
  scale?: ScoreScale;
}

/**
 * Score-aware fusion of hybrid search: a convex combination of each retriever's scores, each
 * brought to [0, 1] by its list's scale (BM25 has no fixed scale; similarity does, but a
 * model's typical range varies), so a candidate scores sum(weight x scaled score); a list that
 * does not hold the candidate adds 0. Unlike reciprocal rank fusion it keeps how far apart the
 * candidates are: a clear keyword winner stays ahead of a candidate the weak retriever ranked
 * first. Measured against RRF on NFCorpus in docs/search.md ("Relevance"). Ties are broken by
 * id, so paging is deterministic. Workspace search fuses fragments with it, files search files.
 */
export function fuseByWeightedScore(lists: WeightedList[]): FusedId[] {
  const fused = new Map<string, FusedId>();
  for (const { retriever, weight, hits, scale = 'best' } of lists) {
    const scores = hits.map((h) => Math.max(h.score, 0));
    const scaled = scaler(scores, scale);
    for (const [i, { id }] of hits.entries()) {
      const hit = fused.get(id) ?? { id, score: 0, matchedBy: [] };
      hit.score += weight * scaled(scores[i]!);
      hit.matchedBy.push(retriever);
      fused.set(id, hit);
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function scaler(scores: number[], scale: ScoreScale): (score: number) => number {
  const best = scores.reduce((max, s) => Math.max(max, s), 0);
  if (scale === 'best') return best > 0 ? (score) => score / best : () => 0;
  const worst = scores.reduce((min, s) => Math.min(min, s), best);
  // One candidate, or all equal: each is as good as the best.
  return best > worst ? (score) => (score - worst) / (best - worst) : () => 1;
}

/**
 * The semantic share of hybrid search: configured, or by how good the provider's vectors are.
 * 0.4 for a real model: within 2% of the best weight for models from half to nine tenths of
 * BM25's nDCG alone, and still at BM25's level for a weak one, where 0.5 lost 11% (docs/search.md).
 */
export function semanticWeight(configured: number | undefined, aiProvider: string): number {
  if (configured !== undefined) return configured;
  return aiProvider === 'builtin' ? 0.2 : 0.4;
}
