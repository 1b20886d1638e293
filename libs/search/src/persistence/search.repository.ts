import { Inject, Injectable } from '@nestjs/common';
import { DataPrisma, type Database } from '@kw/platform-persistence';
import { HEADLINE_FROM, HEADLINE_TO, headlineOptions, snippetHtml } from '@kw/platform-ranking';
import { DATABASE } from '@kw/platform-runtime';
import { BM25_B, BM25_K1, KEYWORD_TERMS_MAX, type CorpusStatistics } from '../domain/keyword-ranking.js';
import type { ReadQuery } from '@kw/platform-query-reading';
import { filterConditions, fragmentConditions, liveInWorkspaces, type FragmentFilters } from './fragment-conditions.js';
import { holdsNoExclusion, holdsPhrases, holdsRequired, requiredQuery } from './query-conditions.js';
import { SEARCH_DB, type SearchDb } from './search-database.js';

export interface RankedId {
  fragmentId: string;
  score: number;
}

/** A fragment of a result page, with its highlighted snippet. */
export interface HitRow {
  id: string;
  workspace_id: string;
  title: string;
  type: string;
  tags: string[];
  snippet: string;
  created_at: Date;
  updated_at: Date;
}

export interface SuggestionRow {
  text: string;
  kind: 'title' | 'tag';
  fragmentId: string;
}

const sql = DataPrisma.sql;

/**
 * The query's ranking words as the index has them (stemmed, stop words dropped), first
 * occurrence first, at most KEYWORD_TERMS_MAX: rows of `lexeme`.
 */
function rankingTerms(query: ReadQuery): DataPrisma.Sql {
  return sql`SELECT u.lexeme FROM unnest(to_tsvector('english', ${query.rankingText})) u ORDER BY u.positions[1] LIMIT ${KEYWORD_TERMS_MAX}`;
}

/** Over rows of `lexeme`: the tsquery matching any of them (each quoted as a tsquery literal). */
const ANY_TERM = sql`string_agg(${"'"} || replace(replace(lexeme, ${'\\'}, ${'\\\\'}), ${"'"}, ${"''"}) || ${"'"}, ' | ')::tsquery`;

/**
 * The tsquery a result's snippet highlights: what the precise query requires (never its excluded
 * words), or any of its ranking words.
 */
function highlightQuery(query: ReadQuery): DataPrisma.Sql {
  return query.precise && query.alternatives.length > 0
    ? requiredQuery(query.alternatives)
    : sql`(SELECT ${ANY_TERM} FROM (${rankingTerms(query)}) terms)`;
}

/** A fragment's snippet: up to two passages of 15-35 words around the matches. */
const SNIPPET_SHAPE = headlineOptions({ maxWords: 35, minWords: 15, maxFragments: 2 });

/** LIKE pattern matching `prefix` literally at the start. */
function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The reads of workspace search: keyword candidates, the filters the vector index cannot apply,
 * the page's fragments with a snippet, and prefix suggestions. Every statement is scoped to the
 * given workspaces and skips archived fragments.
 */
@Injectable()
export class SearchRepository {
  constructor(
    @Inject(SEARCH_DB) private readonly db: SearchDb,
    /** The process's pool (never null here: SEARCH_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /**
   * The statements of every search (candidates, page) go through plain `pg`: Prisma's raw
   * queries add a few milliseconds each, which on the embedded database is a tenth of a search.
   */
  private async rows<T extends object>(query: DataPrisma.Sql): Promise<T[]> {
    return (await this.database.pool.query<T>(query.text, query.values)).rows;
  }

  /**
   * Keyword retrieval ranked by Okapi BM25 (docs/search.md, "Relevance") over the inverted
   * index search_read.fragment_terms: only the rows of the query's own words are read, and their
   * count per word is its document frequency among the authorized workspaces' live fragments
   * (a filter narrows the results without changing how rare a word is). `corpus` gives the
   * fragment count and average length. A precise query (ReadQuery.precise) keeps only the
   * fragments its web-search syntax matches; a relaxed one (any word) too drops the fragments
   * its exclusions match.
   */
  async keywordCandidates(
    workspaceIds: string[],
    query: ReadQuery,
    filters: FragmentFilters,
    corpus: CorpusStatistics,
    depth: number,
  ): Promise<RankedId[]> {
    const narrowed =
      query.precise ||
      query.exclusions.length > 0 ||
      filters.types.length > 0 ||
      filters.tags.length > 0 ||
      !!filters.collectionId;
    const required = query.precise ? holdsRequired(query.alternatives) : sql`TRUE`;
    const kept = narrowed
      ? sql`JOIN search_read.fragments f ON f.id = s.fragment_id
             WHERE ${filterConditions(filters)} AND ${required} AND ${holdsNoExclusion(query.exclusions)}`
      : sql``;
    const rows = await this.rows<{ id: string; score: number }>(sql`
      WITH postings AS (
        SELECT t.fragment_id, t.lexeme, t.tf::float8 AS tf, t.length
          FROM search_read.fragment_terms t
         WHERE t.workspace_id = ANY(${workspaceIds}::uuid[]) AND t.lexeme IN (${rankingTerms(query)})
      ), frequencies AS (
        SELECT lexeme, count(*)::float8 AS df FROM postings GROUP BY lexeme
      ), scored AS (
        SELECT p.fragment_id,
               sum(ln(1 + (greatest(${corpus.documents}::float8, fr.df) - fr.df + 0.5) / (fr.df + 0.5))
                   * p.tf * (${BM25_K1}::float8 + 1)
                   / (p.tf + ${BM25_K1}::float8 * (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * p.length / ${corpus.averageLength}::float8))) AS score
          FROM postings p JOIN frequencies fr USING (lexeme)
         GROUP BY p.fragment_id
      )
      SELECT s.fragment_id::text AS id, s.score::float8 AS score
        FROM scored s ${kept}
       ORDER BY s.score DESC, s.fragment_id
       LIMIT ${depth}`);
    return rows.map((r) => ({ fragmentId: r.id, score: Number(r.score) }));
  }

  /** How many live fragments the workspaces hold and their average BM25 length. */
  async corpusStatistics(workspaceIds: string[]): Promise<CorpusStatistics> {
    const [row] = await this.rows<{ documents: number; average_length: number }>(sql`
      SELECT count(*)::float8 AS documents, coalesce(avg(f.search_length), 0)::float8 AS average_length
        FROM search_read.fragments f WHERE ${liveInWorkspaces(workspaceIds)}`);
    return { documents: Number(row?.documents ?? 0), averageLength: Math.max(Number(row?.average_length ?? 0), 1) };
  }

  /**
   * The ids among `ids` that pass the type, tag and collection filters and hold none of the
   * exclusions (in no order), each saying whether it holds the phrases (one of `phrases`' lists
   * whole; true when none is given): what the vector index cannot check, in one statement over
   * the stored full-text document.
   */
  async matching(
    workspaceIds: string[],
    ids: string[],
    filters: FragmentFilters,
    exclusions: readonly string[] = [],
    phrases?: readonly (readonly string[])[],
  ): Promise<Map<string, boolean>> {
    const holds = phrases ? holdsPhrases(phrases) : sql`TRUE`;
    const rows = await this.rows<{ id: string; holds: boolean }>(sql`
      SELECT f.id::text AS id, ${holds} AS holds FROM search_read.fragments f
       WHERE f.id = ANY(${ids}::uuid[]) AND ${fragmentConditions(workspaceIds, filters)} AND ${holdsNoExclusion(exclusions)}`);
    return new Map(rows.map((r) => [r.id, r.holds]));
  }

  /**
   * The live fragments of a page with a highlighted snippet for the query (in no order): safe
   * HTML whose only markup is `<mark>` (snippetHtml).
   */
  async hits(workspaceIds: string[], query: ReadQuery, ids: string[]): Promise<HitRow[]> {
    const rows = await this.rows<HitRow>(sql`
      SELECT f.id::text AS id, f.workspace_id::text AS workspace_id, f.title, t.key AS type, f.tags, f.created_at, f.updated_at,
             ts_headline('english', translate(concat_ws(' ', f.summary, f.content), ${HEADLINE_FROM}, ${HEADLINE_TO}),
                         coalesce(${highlightQuery(query)}, ''::tsquery), ${SNIPPET_SHAPE}) AS snippet
        FROM search_read.fragments f JOIN search_read.fragment_types t ON t.id = f.fragment_type_id
       WHERE f.id = ANY(${ids}::uuid[]) AND f.workspace_id = ANY(${workspaceIds}::uuid[]) AND f.archived_at IS NULL`);
    return rows.map((r) => ({ ...r, snippet: snippetHtml(r.snippet) }));
  }

  /** What a reranker reads of each live fragment: its title, then its content, `chars` at most. */
  async rerankTexts(workspaceIds: string[], ids: string[], chars: number): Promise<Map<string, string>> {
    const rows = await this.rows<{ id: string; text: string }>(sql`
      SELECT f.id::text AS id, left(concat_ws(chr(10), nullif(f.title, ''), f.content), ${chars}::int) AS text
        FROM search_read.fragments f
       WHERE f.id = ANY(${ids}::uuid[]) AND f.workspace_id = ANY(${workspaceIds}::uuid[]) AND f.archived_at IS NULL`);
    return new Map(rows.map((r) => [r.id, r.text]));
  }

  /**
   * Titles (whole title or any word of it) and tags of one workspace's live fragments that
   * start with the prefix, tags first then titles, alphabetically (tags ignoring case). Tags
   * compare case-insensitively, as the tag filter does: a tag spelt in several cases is
   * suggested once, as most of its fragments spell it (on a tie, the first in code-point order).
   */
  async suggestions(workspaceId: string, prefix: string, limit: number): Promise<SuggestionRow[]> {
    const p = prefix.trim();
    if (p === '') return [];
    const pattern = prefixPattern(p);
    const wordPattern = `% ${pattern}`;
    const rows = await this.db.$queryRaw<{ text: string; kind: 'title' | 'tag'; fragment_id: string }[]>(DataPrisma.sql`
      (SELECT spelling AS text, 'tag' AS kind, '' AS fragment_id
         FROM (SELECT DISTINCT ON (lower(tag)) tag AS spelling
                 FROM search_read.fragments f, unnest(f.tags) AS tag
                WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND lower(tag) LIKE ${pattern}
                GROUP BY tag
                ORDER BY lower(tag), count(*) DESC, tag COLLATE "C") tags
        ORDER BY lower(spelling) LIMIT ${limit})
      UNION ALL
      (SELECT f.title AS text, 'title' AS kind, f.id::text AS fragment_id
         FROM search_read.fragments f
        WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND (lower(f.title) LIKE ${pattern} OR lower(f.title) LIKE ${wordPattern})
        ORDER BY f.title, f.id LIMIT ${limit})`);
    return rows.slice(0, limit).map((r) => ({ text: r.text, kind: r.kind, fragmentId: r.fragment_id }));
  }
}
