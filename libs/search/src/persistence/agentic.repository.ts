import { Inject, Injectable } from '@nestjs/common';
import { AGENTIC_CANDIDATES } from '../search-limits.js';
import { SEARCH_DB, type SearchDb } from './search-database.js';

export interface KeywordHit {
  id: string;
  title: string;
  rank: number;
}

/** The reads of agentic search besides the graph's: keyword leads and their excerpts. */
@Injectable()
export class AgenticRepository {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  /**
   * Postgres full-text over the live fragments of the workspace (title, summary and content with
   * the 'simple' configuration, prefix matching, any term). Terms are plain words (queryTerms),
   * joined into the tsquery here.
   */
  async keywordHits(workspaceId: string, terms: readonly string[]): Promise<KeywordHit[]> {
    if (terms.length === 0) return [];
    const tsquery = terms.map((t) => `${t}:*`).join(' | ');
    return this.db.$queryRaw<KeywordHit[]>`
      SELECT id::text AS id, title, rank FROM (
        SELECT f.id, f.title, f.created_at,
               ts_rank(to_tsvector('simple', f.title || ' ' || coalesce(f.summary, '') || ' ' || f.content), to_tsquery('simple', ${tsquery}))::float8 AS rank
        FROM search_read.fragments f
        WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL
          AND to_tsvector('simple', f.title || ' ' || coalesce(f.summary, '') || ' ' || f.content) @@ to_tsquery('simple', ${tsquery})
      ) hits ORDER BY rank DESC, created_at DESC, id LIMIT ${AGENTIC_CANDIDATES}`;
  }

  /** Per live fragment: its summary, else its content, whitespace collapsed, cut at `chars` characters. */
  async snippets(workspaceId: string, ids: readonly string[], chars: number): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.$queryRaw<Array<{ id: string; snippet: string }>>`
      SELECT id::text AS id, left(regexp_replace(coalesce(nullif(summary, ''), content), '\\s+', ' ', 'g'), ${chars}) AS snippet
      FROM search_read.fragments WHERE workspace_id = ${workspaceId}::uuid AND archived_at IS NULL AND id = ANY(${[...ids]}::uuid[])`;
    return new Map(rows.map((r) => [r.id, r.snippet]));
  }
}
