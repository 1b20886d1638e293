// Ranking metrics as trec_eval (and BEIR's pytrec_eval) define them: nDCG@k with the judged
// grade as the gain and log2(rank + 1) as the discount, the ideal ranking made of every judged
// document; recall@k over the documents judged relevant (grade > 0).

/** @param ranked doc ids, best first; @param judged Map doc id -> grade (> 0) */
export function ndcgAt(k, ranked, judged) {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + (judged.get(id) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...judged.values()]
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(k, ranked, judged) {
  if (judged.size === 0) return 0;
  return ranked.slice(0, k).filter((id) => judged.has(id)).length / judged.size;
}

export const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

export function percentile(values, p) {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
