#!/usr/bin/env node
// How the best semantic weight moves as the embedding model gets better: reads the candidate
// lists a `--sweep` run wrote (bench/results/relevance-<collection>-lists.json), adds to each
// semantic similarity a random bonus on judged-relevant documents (a stronger model, simulated:
// its extra knowledge is independent of BM25's, so the gains are an upper bound), and fuses with
// the platform's own function (from dist/) over a grid of weights. Prints nDCG@10 as a ratio to
// the BM25 baseline of the run's report. The evidence for the default SEARCH_SEMANTIC_WEIGHT of
// real models (docs/search.md, "Ranking").
//
//   node bench/relevance/weight-by-model-strength.mjs --collection=../shared/data/ir/nfcorpus
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliArgs, root } from '../lib.mjs';
import { loadCollection } from './beir.mjs';
import { mean, ndcgAt } from './metrics.mjs';

const args = cliArgs();
const collection = loadCollection(path.resolve(root, args.collection ?? '../shared/data/ir/nfcorpus'));
const results = path.join(root, 'bench/results');
const lists = JSON.parse(readFileSync(path.join(results, `relevance-${collection.name}-lists.json`), 'utf8'));
const bm25 = JSON.parse(readFileSync(path.join(results, `relevance-${collection.name}.json`), 'utf8')).results.bm25
  .ndcg10;
const { fuseByWeightedScore } = await import(path.join(root, 'dist/libs/search/src/service/retrieval/rank-fusion.js'));

const WEIGHTS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
const BONUSES = [0, 0.03, 0.05, 0.08, 0.1, 0.15];
const hits = (list) => list.map(([doc, score]) => ({ fragmentId: doc, score }));

/** A fixed-seed generator: the same table on every run. */
function random(seed) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** The semantic lists of a model better by `bonus`; judged documents it missed enter at its floor. */
function strengthened(bonus) {
  const next = random(11);
  return lists.map((l) => {
    const judged = collection.qrels.get(l.query) ?? new Map();
    const scores = new Map(l.semantic);
    const floor = l.semantic.at(-1)?.[1] ?? 0;
    for (const doc of judged.keys()) if (!scores.has(doc)) scores.set(doc, floor);
    return [...scores]
      .map(([doc, s]) => [doc, s + (judged.has(doc) ? next() * bonus : 0)])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 500);
  });
}

const ndcg = (rankings) => mean(lists.map((l, i) => ndcgAt(10, rankings[i], collection.qrels.get(l.query))));
const rows = BONUSES.map((bonus) => {
  const semantic = strengthened(bonus);
  const row = { 'semantic alone x BM25': (ndcg(semantic.map((s) => s.map(([d]) => d))) / bm25).toFixed(2) };
  for (const weight of WEIGHTS) {
    const fused = lists.map((l, i) =>
      fuseByWeightedScore([
        { retriever: 'keyword', weight: 1 - weight, hits: hits(l.keyword), scale: 'best' },
        { retriever: 'semantic', weight, hits: hits(semantic[i]), scale: 'range' },
      ]).map((h) => h.fragmentId),
    );
    row[weight] = (ndcg(fused) / bm25).toFixed(3);
  }
  return row;
});
console.log(`${collection.name}: hybrid nDCG@10 x BM25 (${bm25.toFixed(4)}) by semantic weight`);
console.table(rows);
