import { AGENTIC_TERMS_MAX } from '../../search-limits.js';

const STOPWORDS = new Set(
  'a an and are as at be but by can did do does for from how i in into is it its me my not of on or our should so that the their then there these this to was we were what when where which who why will with you your about find show tell any all'.split(
    ' ',
  ),
);

/**
 * The keywords of a query: lower-cased runs of letters and digits, stopwords and one-letter
 * words dropped, at most AGENTIC_TERMS_MAX. Only such words ever reach a tsquery, so no
 * user text can break its syntax.
 */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)))].slice(0, AGENTIC_TERMS_MAX);
}

/** The words of entity names, to widen the keyword retrieval (graph expansion). */
export function nameTerms(names: readonly string[]): string[] {
  return queryTerms(names.join(' '));
}
