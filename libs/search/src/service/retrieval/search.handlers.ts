import { Injectable } from '@nestjs/common';
import { SearchService } from '@kw/contracts';
import { assertAccountAllowed } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { SearchQueryLog } from '../analytics/search-query-log.js';
import { SearchRepository } from '../../persistence/search.repository.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { searchText } from '@kw/platform-query-reading';
import { criteriaOf } from './criteria.js';
import { FragmentSearch } from './fragment-search.js';
import { pageOf } from './search-paging.js';

const SUGGESTION_LIMIT_DEFAULT = 10;
const SUGGESTION_LIMIT_MAX = 50;

/** Workspace search, global search and suggestions (scope search:read). */
@Injectable()
export class SearchHandlers {
  constructor(
    private readonly repository: SearchRepository,
    private readonly gate: WorkspaceGate,
    private readonly fragments: FragmentSearch,
    private readonly queryLog: SearchQueryLog,
  ) {}

  @Handles(SearchService.method.search)
  async search(input: RequestOf<typeof SearchService, 'search'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const criteria = criteriaOf(input.search);
    const { limit, offset } = pageOf(input.limit, input.offset);
    const started = performance.now();
    const page = await this.fragments.search([workspaceId], criteria, limit, offset);
    // First pages only: paging through one query is one search for analytics.
    if (offset === 0 && criteria.query !== '') {
      this.queryLog.record({
        workspaceId,
        userId,
        query: criteria.query,
        mode: criteria.mode,
        resultCount: page.totalCount,
        durationMs: Math.round(performance.now() - started),
      });
    }
    return { page };
  }

  /**
   * Every workspace the caller can read: the workspaces component lists them, and each is
   * re-checked with ResolveAccess + the policy (archived and denied ones are skipped; hosted-zone
   * ones too, and named in the answer).
   */
  @Handles(SearchService.method.globalSearch)
  async globalSearch(input: RequestOf<typeof SearchService, 'globalSearch'>, context: RequestContext) {
    assertAccountAllowed({
      auth: context.auth,
      account: context.auth?.userId ? { active: true } : undefined,
      action: 'search:read',
    });
    // Those in a hosted zone are named in the answer, so the client can ask their Leaf.
    const { workspaceIds: readable, inHostedZones: skippedWorkspaces } = await this.gate.readableWorkspaces(
      context,
      'search:read',
    );
    const { limit, offset } = pageOf(input.limit, input.offset);
    const page = await this.fragments.search(readable, criteriaOf(input.search), limit, offset);
    return { page, workspaceCount: readable.length, skippedWorkspaces };
  }

  @Handles(SearchService.method.suggestSearch)
  async suggest(input: RequestOf<typeof SearchService, 'suggestSearch'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const limit = input.limit > 0 ? Math.min(input.limit, SUGGESTION_LIMIT_MAX) : SUGGESTION_LIMIT_DEFAULT;
    return { suggestions: await this.repository.suggestions(workspaceId, searchText(input.prefix), limit) };
  }
}
