import { DataPrisma } from '@kw/platform-persistence';
import type { SearchDb } from '../../persistence/search-database.js';
import { DOCUMENT, fragmentConditions } from './search-filters.js';
import type { SearchCriteria } from './search-query.js';

export interface RankedId {
  fragmentId: string;
  score: number;
}

/**
 * Postgres full-text search with websearch_to_tsquery semantics ("quoted phrases", OR, -not)
 * over the weighted document (title > tags > summary > content), ranked by ts_rank.
 */
export async function keywordCandidates(
  db: SearchDb,
  workspaceIds: string[],
  criteria: SearchCriteria,
  depth: number,
): Promise<RankedId[]> {
  const rows = await db.$queryRaw<{ id: string; rank: number }[]>(DataPrisma.sql`
    SELECT f.id::text AS id, ts_rank(${DOCUMENT}, q)::float8 AS rank
      FROM data.fragments f, websearch_to_tsquery('english', ${criteria.query}) q
     WHERE ${fragmentConditions(workspaceIds, criteria)} AND ${DOCUMENT} @@ q
     ORDER BY rank DESC, f.id
     LIMIT ${depth}`);
  return rows.map((r) => ({ fragmentId: r.id, score: Number(r.rank) }));
}
