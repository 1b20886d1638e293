import { Inject, Injectable } from '@nestjs/common';
import { SearchService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { DataPrisma } from '@kw/platform-persistence';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { SEARCH_DB, type SearchDb } from '../../persistence/search-database.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';

const DAYS_DEFAULT = 30;
const DAYS_MAX = 365;
const TOP_DEFAULT = 10;
const TOP_MAX = 100;

/**
 * Search analytics of a workspace, for its owners: they show what members look for, so they
 * need the owner-only workspace-management permission (action workspaces:write; non-members
 * get the usual 404, other members 403).
 */
@Injectable()
export class SearchAnalyticsHandlers {
  constructor(
    @Inject(SEARCH_DB) private readonly db: SearchDb,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(SearchService.method.getSearchAnalytics)
  async get(input: RequestOf<typeof SearchService, 'getSearchAnalytics'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write');
    const days = input.days > 0 ? Math.min(input.days, DAYS_MAX) : DAYS_DEFAULT;
    const top = input.limit > 0 ? Math.min(input.limit, TOP_MAX) : TOP_DEFAULT;
    const since = new Date(Date.now() - days * 86_400_000);
    const where = { workspaceId, createdAt: { gte: since } };
    const [totalQueries, zeroResultQueries, topQueries, topZero] = await Promise.all([
      this.db.searchQueryLog.count({ where }),
      this.db.searchQueryLog.count({ where: { ...where, resultCount: 0 } }),
      this.topQueries(workspaceId, since, top, false),
      this.topQueries(workspaceId, since, top, true),
    ]);
    return { totalQueries, zeroResultQueries, topQueries, topZeroResultQueries: topZero, days };
  }

  private async topQueries(workspaceId: string, since: Date, limit: number, zeroOnly: boolean) {
    const rows = await this.db.$queryRaw<{ query: string; count: bigint }[]>(DataPrisma.sql`
      SELECT query, count(*) AS count FROM data.search_queries
       WHERE workspace_id = ${workspaceId}::uuid AND created_at >= ${since} ${zeroOnly ? DataPrisma.sql`AND result_count = 0` : DataPrisma.empty}
       GROUP BY query ORDER BY count(*) DESC, query LIMIT ${limit}`);
    return rows.map((r) => ({ query: r.query, count: Number(r.count) }));
  }
}
