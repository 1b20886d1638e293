/**
 * How a query is read (docs/search.md, "How a query is read").
 *
 * - A query of at most SYNTAX_WORDS_MAX words with search syntax, a "quoted phrase", a -excluded
 *   word or the word OR, is precise: web-search semantics (every unquoted word required, phrases
 *   in order, exclusions honoured for the whole query).
 * - Any other query is a description of what is wanted, typically a sentence from a person or
 *   an agent: a fragment matches when it contains any of its words (after stemming and stop
 *   words), and BM25 ranks the fragments holding more of the rarer words first.
 *
 * Both are ranked by BM25 over the query's positive words; only the set of matches differs.
 */
export interface ReadQuery {
  /** The text as typed. */
  text: string;
  precise: boolean;
  /** The words that rank: the text without exclusions, quotes or the OR operator. */
  rankingText: string;
  /**
   * What a precise query excludes (`-word` -> "word", `-"a phrase"` -> "a phrase"): honoured
   * for the whole query, whatever ORs it holds, also when the query is relaxed because its
   * syntax matched nothing (see `relaxed`), and on the vector side.
   */
  exclusions: string[];
  /**
   * What a precise query requires, as web search reads it: alternatives (the parts between ORs,
   * OR binding loosest), each a list of words and phrases all required. Empty for plain text.
   */
  alternatives: QueryTerm[][];
  /**
   * What a model reads (the query's embedding, the reranker, agentic search's widening): the
   * ranking words of a precise query, so neither operators nor excluded words are embedded (an
   * excluded word would pull the fragments holding it up); plain text as it is.
   */
  modelText: string;
}

/** A word, or a quoted phrase (its words in order), of a precise query. */
export interface QueryTerm {
  text: string;
  phrase: boolean;
}

/**
 * A phrase in double quotes, an exclusion (-word at a word start; a minus before a digit is a
 * negative number) or the operator OR.
 */
const SYNTAX = /"|(?:^|\s)-[^\s\d-]|(?:^|\s)OR(?:\s|$)/;
/**
 * Search syntax is typed, in a few words. Longer text is pasted or written as prose (a passage
 * to find what resembles it, an agent's question): its quotation marks, dashes and ORs (an odds
 * ratio in an abstract) are prose too, and requiring its every word would find nothing.
 */
export const SYNTAX_WORDS_MAX = 16;

type Token = { kind: 'word' | 'phrase' | 'or'; text: string } | { kind: 'exclusion'; text: string };

export function readQuery(text: string): ReadQuery {
  const precise = SYNTAX.test(text) && text.trim().split(/\s+/).length <= SYNTAX_WORDS_MAX;
  if (!precise) return { text, precise, rankingText: text, exclusions: [], alternatives: [], modelText: text };
  const tokens = tokenize(text);
  const exclusions = tokens.filter((t) => t.kind === 'exclusion').map((t) => t.text);
  const alternatives: QueryTerm[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'or') alternatives.push([]);
    else if (token.kind !== 'exclusion')
      alternatives.at(-1)!.push({ text: token.text, phrase: token.kind === 'phrase' });
  }
  const required = alternatives.filter((a) => a.length > 0);
  const rankingText = required
    .flat()
    .map((t) => t.text)
    .join(' ');
  return { text, precise, rankingText, exclusions, alternatives: required, modelText: rankingText };
}

/**
 * The tokens of a precise query, as web search reads them: "a phrase" (a minus or OR inside is
 * part of it; an unclosed quote runs to the end), -word and -"a phrase" (a minus at a word start,
 * not before a digit or another minus: `-5` and `low-fat` are words), OR in upper case, words.
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const quoted = (from: number): { text: string; end: number } => {
    const close = text.indexOf('"', from);
    const end = close === -1 ? text.length : close;
    return { text: text.slice(from, end).replace(/\s+/g, ' ').trim(), end: end + 1 };
  };
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
    } else if (text[i] === '"') {
      const phrase = quoted(i + 1);
      if (phrase.text !== '') tokens.push({ kind: 'phrase', text: phrase.text });
      i = phrase.end;
    } else if (text[i] === '-' && text[i + 1] === '"') {
      const phrase = quoted(i + 2);
      if (phrase.text !== '') tokens.push({ kind: 'exclusion', text: phrase.text });
      i = phrase.end;
    } else {
      // A word runs to a space or a quote (web search starts a phrase there).
      let end = i;
      while (end < text.length && !/\s/.test(text[end]!) && text[end] !== '"') end++;
      const word = text.slice(i, end);
      i = end;
      if (word === 'OR') tokens.push({ kind: 'or', text: word });
      else if (/^-[^\d-]/.test(word)) tokens.push({ kind: 'exclusion', text: word.slice(1) });
      else if (word !== '-') tokens.push({ kind: 'word', text: word });
    }
  }
  return tokens;
}

/**
 * A precise query whose syntax matched nothing, read again as a plain one: any of its words,
 * ranked by BM25, its exclusions still honoured. An agent that quotes a term inside a question
 * ('what did we decide about "control plane" upgrades') means the words, not all of them and the
 * phrase in that order; a person who typed syntax sees the closest matches rather than nothing.
 */
export function relaxed(query: ReadQuery): ReadQuery {
  return { ...query, precise: false, alternatives: [] };
}

/**
 * What the vector side requires of a precise query: the semantic side is about meaning, so a
 * plain word is never required there, but a quoted phrase is: a fragment must hold every phrase
 * of one of the alternatives. An alternative without a phrase can be met by meaning alone, and
 * then nothing is required. Undefined when nothing is.
 */
export function requiredPhrases(query: ReadQuery): string[][] | undefined {
  if (!query.precise || query.alternatives.length === 0) return undefined;
  const phrases = query.alternatives.map((a) => a.filter((t) => t.phrase).map((t) => t.text));
  return phrases.some((p) => p.length === 0) ? undefined : phrases;
}
