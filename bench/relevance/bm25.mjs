// The baseline: plain Okapi BM25 (k1 0.9, b 0.4: the parameters of the Anserini runs that BEIR
// reports) over the same documents (title + text) and queries, computed in the same run. Terms
// come from Postgres's own English text search configuration (stop words and Snowball stemming),
// through an in-process PGlite, so the baseline reads words exactly as the platform's index does
// and no tokenizer of our own flatters or handicaps either side.
import { PGlite } from '@electric-sql/pglite';

const BATCH = 200;

/** Per text: lexeme -> its positions (1-based, stop words keep their places). */
async function lexemesOf(db, texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH);
    const { rows } = await db.query(
      `SELECT t.ord::int AS ord, l.lexeme, l.positions
         FROM unnest($1::text[]) WITH ORDINALITY AS t(body, ord),
              LATERAL unnest(to_tsvector('english', t.body)) AS l`,
      [batch],
    );
    const maps = batch.map(() => new Map());
    for (const r of rows) maps[r.ord - 1].set(r.lexeme, r.positions ?? [1]);
    out.push(...maps);
  }
  return out;
}

/**
 * The documents and queries as BM25 reads them, with the statistics and a scorer. `weights` of a
 * query: lexeme -> weight (1 for each word of a plain query). Also what lexical-variants.mjs
 * builds its variants on, so they differ from the baseline only in what they add. The title
 * and text are one field, as in BEIR's flat BM25 runs.
 */
export async function lexicalIndex(docs, queries, { k1 = 0.9, b = 0.4, titleWeight = 1 } = {}) {
  const db = new PGlite();
  try {
    const docTerms = await lexemesOf(
      db,
      docs.map((d) => `${d.title} ${d.text}`),
    );
    const queryTerms = await lexemesOf(
      db,
      queries.map((q) => q.text),
    );
    // titleWeight > 1 (a variant, not the baseline): an occurrence in the title counts that much in
    // tf and once in the length, as the platform's field weights do.
    const titleTerms =
      titleWeight === 1
        ? undefined
        : await lexemesOf(
            db,
            docs.map((d) => d.title),
          );
    const lengths = docTerms.map((m) => [...m.values()].reduce((a, p) => a + p.length, 0));
    const avgLength = lengths.reduce((a, c) => a + c, 0) / Math.max(1, lengths.length);
    /** term -> [doc index, tf][] */
    const postings = new Map();
    docTerms.forEach((m, i) => {
      for (const [term, positions] of m) {
        if (!postings.has(term)) postings.set(term, []);
        const inTitle = titleTerms?.[i].get(term)?.length ?? 0;
        postings.get(term).push([i, positions.length + (titleWeight - 1) * inTitle]);
      }
    });
    const n = docs.length;
    const documentFrequency = (term) => postings.get(term)?.length ?? 0;
    const idf = (term) => {
      const df = documentFrequency(term);
      return df ? Math.log(1 + (n - df + 0.5) / (df + 0.5)) : 0;
    };
    /** The denominator's length part: k1 · (1 − b + b · len / avglen). */
    const lengthNorm = (i) => k1 * (1 - b + (b * lengths[i]) / avgLength);
    const score = (weights) => {
      const scores = new Map();
      for (const [term, weight] of weights) {
        const list = postings.get(term);
        if (!list) continue;
        const termIdf = idf(term);
        for (const [i, tf] of list)
          scores.set(i, (scores.get(i) ?? 0) + (weight * termIdf * tf * (k1 + 1)) / (tf + lengthNorm(i)));
      }
      return scores;
    };
    return { docTerms, queryTerms, lengths, documents: n, documentFrequency, idf, lengthNorm, score, k1 };
  } finally {
    await db.close();
  }
}

/** Scores, best first (ties by document order): [doc index, score][]. */
export const ranked = (scores) => [...scores.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]);

export async function bm25Baseline(docs, queries, { depth = 100, ...params } = {}) {
  const index = await lexicalIndex(docs, queries, params);
  const rankings = new Map();
  queries.forEach((q, qi) => {
    const words = new Map([...index.queryTerms[qi].keys()].map((t) => [t, 1]));
    rankings.set(
      q.id,
      ranked(index.score(words))
        .slice(0, depth)
        .map(([i]) => docs[i].id),
    );
  });
  return rankings;
}
