import type { SearchDb } from '../../persistence/search-database.js';
import { AGENTIC_CANDIDATES } from './agentic-limits.js';

export interface KeywordHit {
  id: string;
  title: string;
  rank: number;
}

/**
 * Postgres full-text over the live fragments of the workspace (title, summary and content with
 * the 'simple' configuration, prefix matching, any term). Terms are plain words (queryTerms),
 * joined into the tsquery here.
 */
export async function keywordRetrieval(
  db: SearchDb,
  workspaceId: string,
  terms: readonly string[],
): Promise<KeywordHit[]> {
  if (terms.length === 0) return [];
  const tsquery = terms.map((t) => `${t}:*`).join(' | ');
  return db.$queryRaw<KeywordHit[]>`
    SELECT id::text AS id, title, rank FROM (
      SELECT f.id, f.title, f.created_at,
             ts_rank(to_tsvector('simple', f.title || ' ' || coalesce(f.summary, '') || ' ' || f.content), to_tsquery('simple', ${tsquery}))::float8 AS rank
      FROM data.fragments f
      WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL
        AND to_tsvector('simple', f.title || ' ' || coalesce(f.summary, '') || ' ' || f.content) @@ to_tsquery('simple', ${tsquery})
    ) hits ORDER BY rank DESC, created_at DESC, id LIMIT ${AGENTIC_CANDIDATES}`;
}
