import { Inject, Injectable } from '@nestjs/common';
import { DataPrisma } from '@kw/platform-persistence';
import { DOCUMENT, fragmentConditions, type FragmentFilters } from './fragment-conditions.js';
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
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  /**
   * Postgres full-text search with websearch_to_tsquery semantics ("quoted phrases", OR, -not)
   * over the weighted document (title > tags > summary > content), ranked by ts_rank.
   */
  async keywordCandidates(
    workspaceIds: string[],
    query: string,
    filters: FragmentFilters,
    depth: number,
  ): Promise<RankedId[]> {
    const rows = await this.db.$queryRaw<{ id: string; rank: number }[]>(DataPrisma.sql`
      SELECT f.id::text AS id, ts_rank(${DOCUMENT}, q)::float8 AS rank
        FROM search_read.fragments f, websearch_to_tsquery('english', ${query}) q
       WHERE ${fragmentConditions(workspaceIds, filters)} AND ${DOCUMENT} @@ q
       ORDER BY rank DESC, f.id
       LIMIT ${depth}`);
    return rows.map((r) => ({ fragmentId: r.id, score: Number(r.rank) }));
  }

  /** The ids among `ids` that pass the type, tag and collection filters (in no order). */
  async matching(workspaceIds: string[], ids: string[], filters: FragmentFilters): Promise<Set<string>> {
    const rows = await this.db.$queryRaw<{ id: string }[]>(DataPrisma.sql`
      SELECT f.id::text AS id FROM search_read.fragments f WHERE f.id = ANY(${ids}::uuid[]) AND ${fragmentConditions(workspaceIds, filters)}`);
    return new Set(rows.map((r) => r.id));
  }

  /** The live fragments of a page with a highlighted snippet for the query (in no order). */
  async hits(workspaceIds: string[], query: string, ids: string[]): Promise<HitRow[]> {
    return this.db.$queryRaw<HitRow[]>(DataPrisma.sql`
      SELECT f.id::text AS id, f.workspace_id::text AS workspace_id, f.title, t.key AS type, f.tags, f.created_at, f.updated_at,
             ts_headline('english', concat_ws(' ', f.summary, f.content), websearch_to_tsquery('english', ${query}),
                         'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, MaxFragments=2') AS snippet
        FROM search_read.fragments f JOIN search_read.fragment_types t ON t.id = f.fragment_type_id
       WHERE f.id = ANY(${ids}::uuid[]) AND f.workspace_id = ANY(${workspaceIds}::uuid[]) AND f.archived_at IS NULL`);
  }

  /**
   * Titles (whole title or any word of it) and tags of one workspace's live fragments that
   * start with the prefix, tags first then titles, alphabetically.
   */
  async suggestions(workspaceId: string, prefix: string, limit: number): Promise<SuggestionRow[]> {
    const p = prefix.trim();
    if (p === '') return [];
    const pattern = prefixPattern(p);
    const wordPattern = `% ${pattern}`;
    const rows = await this.db.$queryRaw<{ text: string; kind: 'title' | 'tag'; fragment_id: string }[]>(DataPrisma.sql`
      (SELECT DISTINCT tag AS text, 'tag' AS kind, '' AS fragment_id
         FROM search_read.fragments f, unnest(f.tags) AS tag
        WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND lower(tag) LIKE ${pattern}
        ORDER BY 1 LIMIT ${limit})
      UNION ALL
      (SELECT f.title AS text, 'title' AS kind, f.id::text AS fragment_id
         FROM search_read.fragments f
        WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND (lower(f.title) LIKE ${pattern} OR lower(f.title) LIKE ${wordPattern})
        ORDER BY f.title, f.id LIMIT ${limit})`);
    return rows.slice(0, limit).map((r) => ({ text: r.text, kind: r.kind, fragmentId: r.fragment_id }));
  }
}
