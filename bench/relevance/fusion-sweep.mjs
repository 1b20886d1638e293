// Tuning hybrid search's fusion for an embedding model (--sweep): fetches each query's keyword
// and semantic candidate lists as hybrid search fuses them (each retriever's 500 best, through
// the public API in pages of 100), then fuses them here with the platform's own function over
// a grid of semantic weights and score scales, and prints nDCG@10 and recall@100 of each
// setting. What the grid says is what SEARCH_SEMANTIC_WEIGHT (and the scale the provider's
// vectors get) should be for that model on that collection: docs/search.md, "Ranking". The
// lists themselves are written to listsFile, for fusions this grid does not try.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { root } from '../lib.mjs';
import { mean, ndcgAt, recallAt } from './metrics.mjs';
import { searchResults } from './search-api.mjs';

const LIST_DEPTH = 500;
const PAGE = 100;
export const SWEEP_WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1];
export const SWEEP_SCALES = [
  { keyword: 'best', semantic: 'best' },
  { keyword: 'best', semantic: 'range' },
  { keyword: 'range', semantic: 'range' },
];

/** A retriever's candidates for a query, best first, as [doc id, score]. */
async function candidates(api, workspaceId, mode, text, docOf) {
  const list = [];
  for (let offset = 0; offset < LIST_DEPTH; offset += PAGE) {
    const results = await searchResults(api, workspaceId, mode, text, { limit: PAGE, offset });
    for (const hit of results)
      list.push({ fragmentId: hit.fragmentId, doc: docOf.get(hit.fragmentId), score: hit.score });
    if (results.length < PAGE) break;
  }
  return list;
}

/** Runs the grid; returns rows for console.table. */
export async function sweepFusion({ api, workspaceId, queries, qrels, docOf, log, listsFile }) {
  const { fuseByWeightedScore } = await import(
    path.join(root, 'dist/libs/search/src/service/retrieval/rank-fusion.js')
  );
  const lists = [];
  for (const q of queries) {
    const keyword = await candidates(api, workspaceId, 'keyword', q.text, docOf);
    const semantic = await candidates(api, workspaceId, 'semantic', q.text, docOf);
    // Fused in the platform's terms (fragment ids, its tie-break), judged in the collection's.
    const docOfId = new Map([...keyword, ...semantic].map((h) => [h.fragmentId, h.doc]));
    lists.push({ q, keyword, semantic, docOfId });
  }
  writeFileSync(
    listsFile,
    JSON.stringify(
      lists.map(({ q, keyword, semantic }) => ({
        query: q.id,
        keyword: keyword.map((h) => [h.doc, h.score]),
        semantic: semantic.map((h) => [h.doc, h.score]),
      })),
    ),
  );
  log(`sweep: candidate lists of ${lists.length} queries written to ${path.relative(root, listsFile)}`);
  const rows = [];
  for (const scale of SWEEP_SCALES) {
    for (const weight of SWEEP_WEIGHTS) {
      const ndcg = [];
      const recall = [];
      for (const { q, keyword, semantic, docOfId } of lists) {
        const fused = fuseByWeightedScore([
          { retriever: 'keyword', weight: 1 - weight, hits: keyword, scale: scale.keyword },
          { retriever: 'semantic', weight, hits: semantic, scale: scale.semantic },
        ]);
        const ranked = fused.map((h) => docOfId.get(h.fragmentId));
        ndcg.push(ndcgAt(10, ranked, qrels.get(q.id)));
        recall.push(recallAt(100, ranked, qrels.get(q.id)));
      }
      rows.push({
        'keyword scale': scale.keyword,
        'semantic scale': scale.semantic,
        'semantic weight': weight,
        'nDCG@10': +mean(ndcg).toFixed(4),
        'recall@100': +mean(recall).toFixed(4),
      });
    }
  }
  return rows;
}
