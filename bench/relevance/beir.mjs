// A BEIR-format collection: corpus.jsonl ({_id, title, text}), queries.jsonl ({_id, text}) and
// qrels/<split>.tsv (query-id, corpus-id, score, with a header line). Only the queries that have
// judgements in the split are test queries.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const jsonLines = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

export function loadCollection(dir, { split = 'test' } = {}) {
  for (const f of ['corpus.jsonl', 'queries.jsonl', `qrels/${split}.tsv`])
    if (!existsSync(path.join(dir, f))) throw new Error(`${dir} is not a BEIR collection: ${f} is missing`);
  const docs = jsonLines(path.join(dir, 'corpus.jsonl')).map((d) => ({
    id: String(d._id),
    title: String(d.title ?? ''),
    text: String(d.text ?? ''),
  }));
  /** qrels: query id -> (doc id -> grade), grades > 0 only (0 is "judged not relevant"). */
  const qrels = new Map();
  for (const line of readFileSync(path.join(dir, `qrels/${split}.tsv`), 'utf8')
    .split('\n')
    .slice(1)) {
    const [q, d, grade] = line.split('\t');
    if (!q || !d || !(Number(grade) > 0)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q).set(d, Number(grade));
  }
  const queries = jsonLines(path.join(dir, 'queries.jsonl'))
    .map((q) => ({ id: String(q._id), text: String(q.text) }))
    .filter((q) => qrels.has(q.id));
  return { name: path.basename(path.resolve(dir)), docs, queries, qrels };
}

/**
 * GET /api/search takes a query of at most SEARCH_QUERY_MAX characters (8,000; it was 2,000, which
 * some of ArguAna's arguments pass): a longer test query is cut there for the platform and the
 * raw query; the BM25 baseline reads it whole, as an outside check would.
 */
export const QUERY_CHARS_MAX = 8_000;
