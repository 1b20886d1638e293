#!/usr/bin/env node
// Keyword ranking ideas measured before they are built: plain BM25 (the harness's baseline)
// against the same BM25 plus one change, on a BEIR collection and the collections derived from
// it (derived-collections.mjs), in process (no platform: seconds per variant). The evidence is in
// docs/search.md ("Ranking ideas measured and not adopted").
//
//   node bench/relevance/lexical-variants.mjs [--collection=../shared/data/ir/nfcorpus]
//        [--derive=no-titles,passages,claims] (as-is and every derived one by default)
//
// Variants:
//   title weight w   an occurrence in the title counts w in tf (the platform uses 3)
//   proximity p      + p × a term-proximity score (Büttcher, Clarke & Lushman, SIGIR 2006) over the
//                    best 200: consecutive occurrences of two different query words at distance
//                    d add each other's idf / d² to an accumulator per word, saturated like tf
//   RM3 λ            pseudo-relevance feedback (Lavrenko & Croft's relevance model, mixed with the
//                    query as in Anserini's RM3): the 10 heaviest words of the best 10 documents
//                    (each document's word distribution weighted by its score), weight 1 − λ,
//                    the query's own words λ; BM25 again with these weights
//   rare words s     the cheaper form tried in the platform: of the relevance model's 50 most
//                    probable words new to the query, those in at most 5 % of the documents (or
//                    20), the 10 heaviest by probability × idf, sharing s / (1 − s) of the
//                    query's weight; their BM25 is added to the first ranking's scores (no second
//                    pass over the query's words). "kept to the query's matches": only documents
//                    holding a query word are ranked, as keyword mode promises
import path from 'node:path';
import { cliArgs, root } from '../lib.mjs';
import { loadCollection } from './beir.mjs';
import { lexicalIndex, ranked } from './bm25.mjs';
import { DERIVED, deriveCollection, describe } from './derived-collections.mjs';
import { mean, ndcgAt, recallAt } from './metrics.mjs';

const args = cliArgs();
const DEPTH = 100;

function proximityScore(index, doc, words) {
  const occurrences = [];
  for (const word of words) for (const p of index.docTerms[doc].get(word) ?? []) occurrences.push([p, word]);
  occurrences.sort((a, b) => a[0] - b[0]);
  const accumulated = new Map();
  for (let k = 1; k < occurrences.length; k++) {
    const [p0, w0] = occurrences[k - 1];
    const [p1, w1] = occurrences[k];
    if (w0 === w1) continue;
    const d2 = (p1 - p0) ** 2;
    accumulated.set(w1, (accumulated.get(w1) ?? 0) + index.idf(w0) / d2);
    accumulated.set(w0, (accumulated.get(w0) ?? 0) + index.idf(w1) / d2);
  }
  let score = 0;
  for (const [word, acc] of accumulated)
    score += (Math.min(1, index.idf(word)) * acc * (index.k1 + 1)) / (acc + index.lengthNorm(doc));
  return score;
}

/** P(w | R) over the best 10 documents: each one's word distribution weighted by its score. */
function relevanceModel(index, first, leaveOut = new Set()) {
  const feedback = first.slice(0, 10);
  const total = feedback.reduce((sum, [, s]) => sum + s, 0) || 1;
  const model = new Map();
  for (const [doc, s] of feedback)
    for (const [word, positions] of index.docTerms[doc])
      if (!leaveOut.has(word))
        model.set(word, (model.get(word) ?? 0) + ((s / total) * positions.length) / index.lengths[doc]);
  return model;
}

function rm3Weights(index, words, first, lambda) {
  const expansion = [...relevanceModel(index, first)].sort((a, b) => b[1] - a[1]).slice(0, 10);
  const mass = expansion.reduce((sum, [, w]) => sum + w, 0) || 1;
  const weights = new Map(words.map((w) => [w, lambda / words.length]));
  for (const [word, w] of expansion) weights.set(word, (weights.get(word) ?? 0) + ((1 - lambda) * w) / mass);
  return weights;
}

function rareWordWeights(index, words, first, share) {
  const model = relevanceModel(index, first, new Set(words));
  const cap = Math.max(20, Math.floor(index.documents * 0.05));
  const chosen = [...model]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 50)
    .filter(([word]) => index.documentFrequency(word) <= cap)
    .map(([word, p]) => [word, p * index.idf(word)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  const mass = chosen.reduce((sum, [, w]) => sum + w, 0) || 1;
  const weight = (share / (1 - share)) * words.length;
  return new Map(chosen.map(([word, w]) => [word, (weight * w) / mass]));
}

async function evaluate(collection, indexes, { titleWeight = 1, proximity = 0, rm3, rareWords, keptToMatches } = {}) {
  if (!indexes.has(titleWeight))
    indexes.set(titleWeight, await lexicalIndex(collection.docs, collection.queries, { titleWeight }));
  const index = indexes.get(titleWeight);
  const ndcg = [];
  const recall = [];
  collection.queries.forEach((q, qi) => {
    const words = [...index.queryTerms[qi].keys()];
    let list = ranked(index.score(new Map(words.map((w) => [w, 1]))));
    if (rm3 !== undefined) list = ranked(index.score(rm3Weights(index, words, list, rm3)));
    if (rareWords !== undefined) {
      const scores = new Map(list);
      for (const [doc, s] of index.score(rareWordWeights(index, words, list, rareWords)))
        if (scores.has(doc)) scores.set(doc, scores.get(doc) + s);
        else if (!keptToMatches) scores.set(doc, s);
      list = ranked(scores);
    }
    if (proximity) {
      const head = list.slice(0, 200).map(([doc, s]) => [doc, s + proximity * proximityScore(index, doc, words)]);
      list = [...head.sort((x, y) => y[1] - x[1] || x[0] - y[0]), ...list.slice(200)];
    }
    const ids = list.slice(0, DEPTH).map(([doc]) => collection.docs[doc].id);
    ndcg.push(ndcgAt(10, ids, collection.qrels.get(q.id)));
    recall.push(recallAt(DEPTH, ids, collection.qrels.get(q.id)));
  });
  return { ndcg10: mean(ndcg), recall100: mean(recall) };
}

const VARIANTS = [
  ['plain BM25 (baseline)', {}],
  ['title weight 2', { titleWeight: 2 }],
  ['title weight 3', { titleWeight: 3 }],
  ['proximity 0.5', { proximity: 0.5 }],
  ['proximity 1', { proximity: 1 }],
  ['RM3 λ 0.5', { rm3: 0.5 }],
  ['RM3 λ 0.8', { rm3: 0.8 }],
  ['rare words 0.05', { rareWords: 0.05 }],
  ['rare words 0.05, kept to the query matches', { rareWords: 0.05, keptToMatches: true }],
  ['rare words 0.1', { rareWords: 0.1 }],
];

const source = loadCollection(path.resolve(root, args.collection ?? '../shared/data/ir/nfcorpus'));
const kinds = args.derive ? args.derive.split(',') : ['', ...DERIVED];
for (const kind of kinds) {
  const collection = deriveCollection(source, kind);
  console.log(`\n${describe(collection)}`);
  const rows = [];
  const indexes = new Map(); // title weight -> index: tokenizing is most of a variant's time
  let base;
  for (const [name, options] of VARIANTS) {
    const r = await evaluate(collection, indexes, options);
    base ??= r;
    rows.push({
      variant: name,
      'nDCG@10': r.ndcg10.toFixed(4),
      'x BM25': (r.ndcg10 / base.ndcg10).toFixed(3),
      'recall@100': r.recall100.toFixed(4),
      'recall x BM25': (r.recall100 / base.recall100).toFixed(3),
    });
  }
  console.table(rows);
}
