// Collections made from a BEIR collection, to see whether a ranking change generalises beyond the
// query and document shapes of the one collection there is to tune on (the others are held
// back). Each keeps the collection's documents and reshapes queries or titles:
//
//   no-titles  the documents without titles (the harness then titles a fragment by its first
//              120 characters): ranking must not lean on curated titles
//   passages   for each test query with a highly judged (grade 2) document: that document's
//              title and text as the query, the query's other judged documents as the answers;
//              the query documents leave the corpus (and every judgement): long pasted queries
//   claims     one document in twelve (at most 300, those with four sentences or more): its last
//              sentence (a finding, like a claim that cites the paper) as the query, that
//              document without it as the only answer: one relevant document per query, as in
//              SciFact, where a change that helps many-answer topics can hurt
import { mean } from './metrics.mjs';

export const DERIVED = ['no-titles', 'passages', 'claims'];

const sentencesOf = (text) => text.split(/(?<=[.!?])\s+(?=[A-Z])/);

export function deriveCollection(collection, kind) {
  if (!kind) return collection;
  const name = `${collection.name}-${kind}`;
  if (kind === 'no-titles') return { ...collection, name, docs: collection.docs.map((d) => ({ ...d, title: '' })) };
  if (kind === 'passages') return passages(collection, name);
  if (kind === 'claims') return claims(collection, name);
  throw new Error(`--derive=${kind}: one of ${DERIVED.join(', ')}`);
}

function passages({ docs, queries, qrels }, name) {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const picked = [];
  for (const q of queries) {
    const judged = qrels.get(q.id);
    const top = [...judged].find(([id, grade]) => grade === 2 && byId.has(id));
    if (top) picked.push([q.id, top[0]]);
  }
  const queryDocs = new Set(picked.map(([, doc]) => doc));
  const derivedQrels = new Map();
  const derivedQueries = [];
  for (const [queryId, docId] of picked) {
    const answers = new Map([...qrels.get(queryId)].filter(([id]) => !queryDocs.has(id)));
    if (!answers.size) continue;
    const doc = byId.get(docId);
    derivedQueries.push({ id: queryId, text: `${doc.title} ${doc.text}`.trim() });
    derivedQrels.set(queryId, answers);
  }
  return { name, docs: docs.filter((d) => !queryDocs.has(d.id)), queries: derivedQueries, qrels: derivedQrels };
}

function claims({ docs }, name) {
  const picked = new Map();
  docs.forEach((d, i) => {
    const sentences = sentencesOf(d.text);
    if (i % 12 === 0 && sentences.length >= 4 && picked.size < 300) picked.set(d.id, sentences);
  });
  const queries = [...picked].map(([id, sentences]) => ({
    id: `claim-${id}`,
    // "CONCLUSIONS: …" -> "…": a claim does not announce its section.
    text: sentences[sentences.length - 1].replace(/^[A-Z ]+:\s*/, ''),
  }));
  return {
    name,
    docs: docs.map((d) => (picked.has(d.id) ? { ...d, text: picked.get(d.id).slice(0, -1).join(' ') } : d)),
    queries,
    qrels: new Map([...picked.keys()].map((id) => [`claim-${id}`, new Map([[id, 1]])])),
  };
}

/** One line describing a collection's shape, for the reports. */
export const describe = ({ name, docs, queries, qrels }) =>
  `${name}: ${docs.length} documents, ${queries.length} queries, ` +
  `${mean([...qrels.values()].map((m) => m.size)).toFixed(1)} judged relevant per query`;
