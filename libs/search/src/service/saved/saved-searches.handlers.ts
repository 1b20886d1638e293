import { Injectable } from '@nestjs/common';
import { SearchService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, notFound } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { criteriaOf } from '../retrieval/criteria.js';
import { FragmentSearch } from '../retrieval/fragment-search.js';
import { pageOf } from '../retrieval/search-paging.js';
import { SavedSearchesRepository, type SavedSearchRow } from '../../persistence/saved-searches.repository.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { isUuid } from '@kw/platform-ids';

type SavedRow = SavedSearchRow;

/** A user's saved searches per workspace (keeps the table bounded). */
export const SAVED_SEARCHES_MAX = 100;

const savedNotFound = () => notFound('Saved search');

function savedView(row: SavedRow) {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    search: {
      query: row.query,
      mode: row.mode,
      types: row.types,
      tags: row.tags,
      collectionId: row.collectionId ?? '',
    },
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Saved searches are private to the user who saved them, in one workspace. Reading or running
 * one re-checks search:read on its workspace now: a user who left the workspace loses them,
 * and someone else's id answers 404 like a missing one.
 */
@Injectable()
export class SavedSearchesHandlers {
  constructor(
    private readonly saved: SavedSearchesRepository,
    private readonly gate: WorkspaceGate,
    private readonly fragments: FragmentSearch,
  ) {}

  @Handles(SearchService.method.createSavedSearch)
  async create(input: RequestOf<typeof SearchService, 'createSavedSearch'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const criteria = criteriaOf(input.search);
    if (criteria.collectionId) await this.checkOwnCollection(workspaceId, criteria.collectionId);
    const row = await this.saved.insertWithin(
      {
        workspaceId,
        userId,
        name: input.name,
        query: criteria.query,
        mode: criteria.mode,
        types: criteria.types,
        tags: criteria.tags,
        collectionId: criteria.collectionId ?? null,
      },
      SAVED_SEARCHES_MAX,
    );
    if (!row)
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: `At most ${SAVED_SEARCHES_MAX} saved searches per workspace`,
      });
    return { savedSearch: savedView(row) };
  }

  @Handles(SearchService.method.listSavedSearches)
  async list(input: RequestOf<typeof SearchService, 'listSavedSearches'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'search:read');
    const rows = await this.saved.listOf(workspaceId, userId);
    return { savedSearches: rows.map(savedView) };
  }

  @Handles(SearchService.method.runSavedSearch)
  async run(input: RequestOf<typeof SearchService, 'runSavedSearch'>, context: RequestContext) {
    const row = await this.authorizedRow(context, input.id);
    const { limit, offset } = pageOf(input.limit, input.offset);
    const saved = savedView(row);
    const page = await this.fragments.search([row.workspaceId], criteriaOf(saved.search), limit, offset);
    return { savedSearch: saved, page };
  }

  @Handles(SearchService.method.deleteSavedSearch)
  async delete(input: RequestOf<typeof SearchService, 'deleteSavedSearch'>, context: RequestContext) {
    const row = await this.authorizedRow(context, input.id);
    await this.saved.delete(row.id, row.userId);
    return {};
  }

  /** A saved search may only name a collection of its own workspace: another tenant's id is refused like a missing one. */
  private async checkOwnCollection(workspaceId: string, collectionId: string): Promise<void> {
    if (await this.saved.collectionExists(workspaceId, collectionId)) return;
    const problem = 'must be a collection of this workspace';
    throw new AppError({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `collectionId: ${problem}`,
      param: 'collectionId',
      details: { fields: [{ field: 'collectionId', problems: [problem] }] },
    });
  }

  /** The caller's own saved search, in a workspace they may still search. */
  private async authorizedRow(context: RequestContext, id: string): Promise<SavedRow> {
    const userId = context.auth?.userId;
    const row = userId && isUuid(id) ? await this.saved.findById(id) : null;
    if (!row || row.userId !== userId) {
      // Unauthenticated callers still get 401 first.
      if (!userId) await this.gate.authorize(context, '', 'search:read');
      throw savedNotFound();
    }
    await this.gate.authorize(context, row.workspaceId, 'search:read').catch((err: unknown) => {
      throw (err as { status?: number }).status === 404 ? savedNotFound() : err;
    });
    return row;
  }
}
