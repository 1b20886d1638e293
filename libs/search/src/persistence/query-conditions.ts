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

/** A lexeme in a tsquery's text: quoted, a quote inside doubled (`'o''neil'`). */
const LEXEME = "'(?:[^']|'')*'";

/**
 * The term's tsquery with every lexeme restricted to the positions of one weight, so a phrase
 * matches inside one field only: the stored document joins title (A), tags (B), summary (C) and
 * content (D) with `||`, which puts the last word of a field next to the first of the following
 * one (`'roadmap' <-> 'budget'` -> `'roadmap':C <-> 'budget':C`; a `<N>` distance is kept).
 */
function inField(text: string, weight: 'A' | 'B' | 'C' | 'D'): DataPrisma.Sql {
  return sql`regexp_replace(${term(text)}::text, ${LEXEME}, ${`\\&:${weight}`}, 'g')::tsquery`;
}

/**
 * A tag as the stored document reads it: in NFC (data.fragment_search_nfc, which search may not
 * call: it reads only the views of search_read).
 */
const TAG_NFC = sql`CASE WHEN getdatabaseencoding() = 'UTF8' THEN normalize(tag, NFC) ELSE tag END`;

/**
 * Over `search_read.fragments f`: the word or phrase is inside the title, the summary, the
 * content or one tag. The plain match comes first: it may use the GIN index, and the fields are
 * asked only of the fragments it finds, and only of more than one lexeme (one lexeme is always
 * inside a field; the planner folds that test away). The tags are one field of weight B joined by
 * spaces, so a phrase matched there is checked again against each tag alone: it may not run from
 * one tag into the next. A CASE, not OR: from an OR the planner made one index scan per field
 * and checked each candidate twice, which doubled a phrase's time (docs/search.md).
 */
function holds(text: string): DataPrisma.Sql {
  return sql`(f.search_document @@ ${term(text)}
    AND CASE WHEN numnode(${term(text)}) <= 1
                  OR f.search_document @@ (${inField(text, 'A')} || ${inField(text, 'C')} || ${inField(text, 'D')}) THEN TRUE
             WHEN f.search_document @@ ${inField(text, 'B')}
               THEN EXISTS (SELECT 1 FROM unnest(f.tags) AS tag WHERE to_tsvector('english', ${TAG_NFC}) @@ ${term(text)})
             ELSE FALSE END)`;
}

/**
 * The word or phrase reads as no lexeme (stop words only, `"the"`): it asks nothing, as the `&&`
 * and `||` of tsqueries drop an empty operand (`the kafka` is `kafka`).
 */
function isEmpty(text: string): DataPrisma.Sql {
  return sql`numnode(${term(text)}) = 0`;
}

/** All the words and phrases, an empty one asking nothing; nothing holds an all-empty list. */
function allOf(terms: readonly string[]): DataPrisma.Sql {
  return sql`(NOT (${DataPrisma.join(terms.map(isEmpty), ' AND ')})
    AND ${DataPrisma.join(
      terms.map((t) => sql`(${isEmpty(t)} OR ${holds(t)})`),
      ' AND ',
    )})`;
}

/** Any of the alternatives, each all of its words and phrases. */
function anyOfAll(alternatives: readonly (readonly string[])[]): DataPrisma.Sql {
  return sql`(${DataPrisma.join(alternatives.map(allOf), ' OR ')})`;
}

/**
 * The tsquery that highlights what a precise query requires in a snippet (its alternatives,
 * without its exclusions). ts_headline reads plain text, without fields: it marks the words.
 */
export function requiredQuery(alternatives: readonly QueryTerm[][]): DataPrisma.Sql {
  return sql`(${DataPrisma.join(
    alternatives.map(
      (terms) =>
        sql`(${DataPrisma.join(
          terms.map((t) => term(t.text)),
          ' && ',
        )})`,
    ),
    ' || ',
  )})`;
}

/**
 * Over `search_read.fragments f`: the fragment holds what a precise query requires. A query whose
 * alternatives are all empty (only exclusions, or only OR) requires what nothing holds.
 */
export function holdsRequired(alternatives: readonly QueryTerm[][]): DataPrisma.Sql {
  return alternatives.length > 0 ? anyOfAll(alternatives.map((terms) => terms.map((t) => t.text))) : sql`FALSE`;
}

/** Over `search_read.fragments f`: one of the alternatives' phrases are all in the fragment. */
export function holdsPhrases(alternatives: readonly (readonly string[])[]): DataPrisma.Sql {
  return anyOfAll(alternatives);
}

/**
 * Over `search_read.fragments f`: the fragment holds none of the excluded words and phrases. Every
 * exclusion holds for the whole query, and-ed at its top level (TRUE when there is none).
 */
export function holdsNoExclusion(exclusions: readonly string[]): DataPrisma.Sql {
  if (exclusions.length === 0) return sql`TRUE`;
  return sql`NOT (${DataPrisma.join(exclusions.map(holds), ' OR ')})`;
}
