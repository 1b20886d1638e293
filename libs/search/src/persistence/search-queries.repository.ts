import { Inject, Injectable } from '@nestjs/common';
import { DataPrisma, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
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
  constructor(
    @Inject(SEARCH_DB) private readonly db: SearchDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** One per workspace search: a plain statement (decision 0008), a fifth of a Prisma create's CPU. */
  async insert(entry: NewSearchQuery): Promise<void> {
    await this.database.pool.query(
      `INSERT INTO data.search_queries (workspace_id, user_id, query, mode, result_count, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [entry.workspaceId, entry.userId, entry.query, entry.mode, entry.resultCount, entry.durationMs],
    );
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
