import { DataPrisma } from '@kw/platform-persistence';
import type { QueryTerm } from '@kw/platform-query-reading';

const sql = DataPrisma.sql;

/**
 * The tsqueries of search syntax (docs/search.md, "How a query is read"), built from the read
 * query rather than by `websearch_to_tsquery` over the typed text: that one binds `!` tighter than
 * `|`, so in `zebra OR giraffe -winter` the exclusion guarded only `giraffe`. Each word or phrase
 * is one `phraseto_tsquery` (its words in order; a hyphenated word reads as web search reads it),
 * a bound parameter each, so no user text reaches tsquery syntax.
 */
function term(text: string): DataPrisma.Sql {
  return sql`phraseto_tsquery('english', ${text})`;
}

/** Any of the alternatives, each all of its words and phrases. */
function anyOfAll(alternatives: readonly (readonly string[])[]): DataPrisma.Sql {
  return sql`(${DataPrisma.join(
    alternatives.map((terms) => sql`(${DataPrisma.join(terms.map(term), ' && ')})`),
    ' || ',
  )})`;
}

/** The tsquery of what a precise query requires (its alternatives), without its exclusions. */
export function requiredQuery(alternatives: readonly QueryTerm[][]): DataPrisma.Sql {
  return anyOfAll(alternatives.map((terms) => terms.map((t) => t.text)));
}

/**
 * Over `search_read.fragments f`: the fragment holds what a precise query requires. A query whose
 * alternatives are all empty (only exclusions, or only OR) requires what nothing holds.
 */
export function holdsRequired(alternatives: readonly QueryTerm[][]): DataPrisma.Sql {
  return alternatives.length > 0 ? sql`f.search_document @@ ${requiredQuery(alternatives)}` : sql`FALSE`;
}

/** Over `search_read.fragments f`: one of the alternatives' phrases are all in the fragment. */
export function holdsPhrases(alternatives: readonly (readonly string[])[]): DataPrisma.Sql {
  return sql`f.search_document @@ ${anyOfAll(alternatives)}`;
}

/**
 * Over `search_read.fragments f`: the fragment holds none of the excluded words and phrases. Every
 * exclusion holds for the whole query, and-ed at its top level (TRUE when there is none).
 */
export function holdsNoExclusion(exclusions: readonly string[]): DataPrisma.Sql {
  if (exclusions.length === 0) return sql`TRUE`;
  return sql`NOT (f.search_document @@ (${DataPrisma.join(exclusions.map(term), ' || ')}))`;
}
