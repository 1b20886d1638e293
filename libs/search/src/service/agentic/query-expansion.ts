import type { AiProvider } from '@kw/platform-ai';
import { AGENTIC_TERMS_MAX, SEARCH_QUERY_MODEL_CHARS } from '../../search-limits.js';
import { queryTerms } from './query-terms.js';

export interface Expansion {
  /** The query's own keywords, then the model's. */
  terms: string[];
  /** The query's own keywords alone. */
  own: string[];
  detail: string;
}

/** Keywords the model may add to the query's own. */
const MODEL_TERMS_MAX = 5;

/**
 * The keywords of a query, widened by the configured model when there is one (AI_PROVIDER=openai:
 * it is asked for the query's topics, the provider's tag prompt). The model's words pass through
 * queryTerms like the user's, so only plain words reach full-text search. A failing model is
 * not fatal, nor one slower than `timeoutMs` (SEARCH_MODEL_TIMEOUT_MS): the built-in keywords
 * stand and the step says so. The model reads a long query's opening (SEARCH_QUERY_MODEL_CHARS).
 */
export async function expandQuery(query: string, ai: AiProvider, timeoutMs?: number): Promise<Expansion> {
  const own = queryTerms(query);
  if (ai.name === 'builtin') return { terms: own, own, detail: 'keywords of the query (built-in expansion)' };
  try {
    const topics = queryTerms(
      (await ai.generateTags(query.slice(0, SEARCH_QUERY_MODEL_CHARS), MODEL_TERMS_MAX, { timeoutMs })).join(' '),
    );
    const added = topics.filter((t) => !own.includes(t));
    return {
      terms: [...own, ...added].slice(0, AGENTIC_TERMS_MAX + MODEL_TERMS_MAX),
      own,
      detail: `keywords of the query, expanded by the ${ai.name} model (+${added.length})`,
    };
  } catch {
    return { terms: own, own, detail: `keywords of the query (the ${ai.name} model failed: built-in expansion)` };
  }
}
