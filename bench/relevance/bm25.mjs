// The baseline: plain Okapi BM25 (k1 0.9, b 0.4: the parameters of the Anserini runs that BEIR
// reports) over the same documents (title + text) and queries, computed in the same run. Terms
// come from Postgres's own English text search configuration (stop words and Snowball stemming),
// through an in-process PGlite, so the baseline reads words exactly as the platform's index does
// and no tokenizer of our own flatters or handicaps either side.
import { PGlite } from '@electric-sql/pglite';

const BATCH = 200;

async function termFrequencies(db, texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH);
    const { rows } = await db.query(
      `SELECT t.ord::int AS ord, l.lexeme, coalesce(array_length(l.positions, 1), 1) AS tf
         FROM unnest($1::text[]) WITH ORDINALITY AS t(body, ord),
              LATERAL unnest(to_tsvector('english', t.body)) AS l`,
      [batch],
    );
    const maps = batch.map(() => new Map());
    for (const r of rows) maps[r.ord - 1].set(r.lexeme, r.tf);
    out.push(...maps);
  }
  return out;
}

export async function bm25Baseline(docs, queries, { k1 = 0.9, b = 0.4, depth = 100 } = {}) {
  const db = new PGlite();
  try {
    const docTerms = await termFrequencies(
      db,
      docs.map((d) => `${d.title} ${d.text}`),
    );
    const queryTerms = await termFrequencies(
      db,
      queries.map((q) => q.text),
    );
    const lengths = docTerms.map((m) => [...m.values()].reduce((a, c) => a + c, 0));
    const avgLength = lengths.reduce((a, c) => a + c, 0) / Math.max(1, lengths.length);
    /** term -> [doc index, tf][] */
    const postings = new Map();
    docTerms.forEach((m, i) => {
      for (const [term, tf] of m) {
        if (!postings.has(term)) postings.set(term, []);
        postings.get(term).push([i, tf]);
      }
    });
    const n = docs.length;
    const rankings = new Map();
    queries.forEach((q, qi) => {
      const scores = new Map();
      for (const term of queryTerms[qi].keys()) {
        const list = postings.get(term);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const [i, tf] of list) {
          const norm = tf + k1 * (1 - b + (b * lengths[i]) / avgLength);
          scores.set(i, (scores.get(i) ?? 0) + (idf * tf * (k1 + 1)) / norm);
        }
      }
      const ranked = [...scores.entries()]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, depth)
        .map(([i]) => docs[i].id);
      rankings.set(q.id, ranked);
    });
    return rankings;
  } finally {
    await db.close();
  }
}
