import { Injectable } from '@nestjs/common';
import { SearchService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { SearchQueriesRepository } from '../../persistence/search-queries.repository.js';
import { SearchQueryLog } from './search-query-log.js';

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
    private readonly queries: SearchQueriesRepository,
    private readonly gate: WorkspaceGate,
    private readonly log: SearchQueryLog,
  ) {}

  @Handles(SearchService.method.getSearchAnalytics)
  async get(input: RequestOf<typeof SearchService, 'getSearchAnalytics'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write');
    const days = input.days > 0 ? Math.min(input.days, DAYS_MAX) : DAYS_DEFAULT;
    const top = input.limit > 0 ? Math.min(input.limit, TOP_MAX) : TOP_DEFAULT;
    const since = new Date(Date.now() - days * 86_400_000);
    // Searches answered by this process before this request count, though written after answering.
    await this.log.settled();
    const [totalQueries, zeroResultQueries, topQueries, topZero] = await Promise.all([
      this.queries.count(workspaceId, since, false),
      this.queries.count(workspaceId, since, true),
      this.queries.top(workspaceId, since, top, false),
      this.queries.top(workspaceId, since, top, true),
    ]);
    return { totalQueries, zeroResultQueries, topQueries, topZeroResultQueries: topZero, days };
  }
}
