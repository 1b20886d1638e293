import { Inject, Injectable } from '@nestjs/common';
import { DataPrisma } from '@kw/platform-persistence';
import { SEARCH_DB, type SearchDb } from './search-database.js';

export interface NewSearchQuery {
  workspaceId: string;
  userId: string;
  query: string;
  mode: string;
  resultCount: number;
  durationMs: number;
}

/** data.search_queries: the workspace searches recorded for the owners' analytics (search's own table). */
@Injectable()
export class SearchQueriesRepository {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  async insert(entry: NewSearchQuery): Promise<void> {
    await this.db.searchQueryLog.create({ data: entry });
  }

  /** Queries recorded since `since` (only those that found nothing with `zeroOnly`). */
  async count(workspaceId: string, since: Date, zeroOnly: boolean): Promise<number> {
    const where = { workspaceId, createdAt: { gte: since } };
    return this.db.searchQueryLog.count({ where: zeroOnly ? { ...where, resultCount: 0 } : where });
  }

  /** The most frequent queries since `since`, most frequent first. */
  async top(
    workspaceId: string,
    since: Date,
    limit: number,
    zeroOnly: boolean,
  ): Promise<Array<{ query: string; count: number }>> {
    const rows = await this.db.$queryRaw<{ query: string; count: bigint }[]>(DataPrisma.sql`
      SELECT query, count(*) AS count FROM data.search_queries
       WHERE workspace_id = ${workspaceId}::uuid AND created_at >= ${since} ${zeroOnly ? DataPrisma.sql`AND result_count = 0` : DataPrisma.empty}
       GROUP BY query ORDER BY count(*) DESC, query LIMIT ${limit}`);
    return rows.map((r) => ({ query: r.query, count: Number(r.count) }));
  }
}
