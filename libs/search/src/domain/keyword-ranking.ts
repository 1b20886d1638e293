/**
 * The parameters of keyword ranking, Okapi BM25 (Robertson et al.) over the stored weighted
 * document of a fragment. Chosen on NFCorpus and stated with the evidence in docs/search.md
 * ("Relevance"); k1 and b are the values BEIR's and Anserini's BM25 baselines use.
 */
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

/**
 * The field weights of term frequency (title 3, tags 2, summary 0.25, content 1) and the length
 * are computed where the inverted index is written: data.fragment_terms_of, migration
 * 20261125110000_search_bm25.
 */

/** What BM25 needs of the searched fragments as a whole (shared with files search). */
export type { CorpusStatistics } from '@kw/platform-ranking';

/**
 * A sentence beyond this many distinct words ranks by its first ones: a pasted paragraph
 * should not cost a scan per word. Long enough for any question a person or agent asks.
 */
export const KEYWORD_TERMS_MAX = 48;
