import { fuseByWeightedScore as fuseById, type WeightedList as WeightedIdList } from '@kw/platform-ranking';

export { semanticWeight, type ScoreScale } from '@kw/platform-ranking';

export interface FusedHit {
  fragmentId: string;
  score: number;
  /** The retrievers whose list held the fragment, in the order given. */
  matchedBy: string[];
}

/** One retriever's fragments, best first, with non-negative scores, and its share of the fusion. */
export interface WeightedList extends Omit<WeightedIdList, 'hits'> {
  hits: { fragmentId: string; score: number }[];
}

/**
 * Hybrid search's fusion of fragment lists: the platform's weighted score fusion
 * (`@kw/platform-ranking`, shared with files search), over fragment ids.
 */
export function fuseByWeightedScore(lists: WeightedList[]): FusedHit[] {
  return fuseById(
    lists.map((list) => ({ ...list, hits: list.hits.map((h) => ({ id: h.fragmentId, score: h.score })) })),
  ).map(({ id, score, matchedBy }) => ({ fragmentId: id, score, matchedBy }));
}
