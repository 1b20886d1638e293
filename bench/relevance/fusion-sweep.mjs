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
import { QUERY_CHARS_MAX } from './beir.mjs';
import { mean, ndcgAt, recallAt } from './metrics.mjs';

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
    const url = `${api.base}/api/search?workspaceId=${workspaceId}&mode=${mode}&limit=${PAGE}&offset=${offset}&q=${encodeURIComponent(text)}`;
    const res = await fetch(url, { headers: api.auth });
    const body = await res.json();
    if (!res.ok) throw new Error(`search (${mode}) answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    for (const hit of body.results)
      list.push({ fragmentId: hit.fragmentId, doc: docOf.get(hit.fragmentId), score: hit.score });
    if (body.results.length < PAGE) break;
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
    const text = q.text.slice(0, QUERY_CHARS_MAX);
    lists.push({
      q,
      keyword: await candidates(api, workspaceId, 'keyword', text, docOf),
      semantic: await candidates(api, workspaceId, 'semantic', text, docOf),
    });
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
      for (const { q, keyword, semantic } of lists) {
        const fused = fuseByWeightedScore([
          { retriever: 'keyword', weight: 1 - weight, hits: keyword, scale: scale.keyword },
          { retriever: 'semantic', weight, hits: semantic, scale: scale.semantic },
        ]);
        const docOfId = new Map([...keyword, ...semantic].map((h) => [h.fragmentId, h.doc]));
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
