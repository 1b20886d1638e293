/**
 * How a keyword query is read (docs/search.md, "How a query is read").
 *
 * - A query of at most SYNTAX_WORDS_MAX words with search syntax, a "quoted phrase", a -excluded
 *   word or the word OR, is precise: web-search semantics (every unquoted word required, phrases
 *   in order, exclusions honoured).
 * - Any other query is a description of what is wanted, typically a sentence from a person or
 *   an agent: a fragment matches when it contains any of its words (after stemming and stop
 *   words), and BM25 ranks the fragments holding more of the rarer words first.
 *
 * Both are ranked by BM25 over the query's positive words; only the set of matches differs.
 */
export interface ReadQuery {
  /** The text as typed: web-search syntax when precise. */
  text: string;
  precise: boolean;
  /** The words that rank: the text without exclusions, quotes or the OR operator. */
  rankingText: string;
  /**
   * What a precise query excludes (`-word` -> "word", `-"a phrase"` -> "a phrase"): honoured
   * also when the query is relaxed because its syntax matched nothing (see `relaxed`).
   */
  exclusions: string[];
}

/**
 * A phrase in double quotes, an exclusion (-word at a word start; a minus before a digit is a
 * negative number) or the operator OR.
 */
const SYNTAX = /"|(?:^|\s)-[^\s\d-]|(?:^|\s)OR(?:\s|$)/;
/** An excluded word or quoted phrase: -word, -"a phrase". */
const EXCLUSION = /(?:^|\s)-(?:"[^"]*"?|[^\s\d]\S*)/g;
/**
 * Search syntax is typed, in a few words. Longer text is pasted or written as prose (a passage
 * to find what resembles it, an agent's question): its quotation marks, dashes and ORs (an odds
 * ratio in an abstract) are prose too, and requiring its every word would find nothing.
 */
export const SYNTAX_WORDS_MAX = 16;

export function readQuery(text: string): ReadQuery {
  const precise = SYNTAX.test(text) && text.trim().split(/\s+/).length <= SYNTAX_WORDS_MAX;
  if (!precise) return { text, precise, rankingText: text, exclusions: [] };
  const exclusions = [...text.matchAll(EXCLUSION)]
    .map((m) => m[0].trim().slice(1).replace(/"/g, ' ').trim())
    .filter((e) => e !== '');
  const rankingText = text
    .replace(EXCLUSION, ' ')
    .replace(/(?:^|\s)OR(?=\s|$)/g, ' ')
    .replace(/"/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, precise, rankingText, exclusions };
}

/**
 * A precise query whose syntax matched nothing, read again as a plain one: any of its words,
 * ranked by BM25, its exclusions still honoured. An agent that quotes a term inside a question
 * ('what did we decide about "control plane" upgrades') means the words, not all of them and the
 * phrase in that order; a person who typed syntax sees the closest matches rather than nothing.
 */
export function relaxed(query: ReadQuery): ReadQuery {
  return { ...query, precise: false };
}
