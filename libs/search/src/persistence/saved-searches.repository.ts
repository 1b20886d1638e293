import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_DB, type SearchDb } from './search-database.js';
import { createBelowCap } from '@kw/platform-persistence';

export type SavedSearchRow = Awaited<ReturnType<SearchDb['savedSearch']['findUniqueOrThrow']>>;

export interface NewSavedSearch {
  workspaceId: string;
  userId: string;
  name: string;
  query: string;
  mode: string;
  types: string[];
  tags: string[];
  collectionId: string | null;
}

/** data.saved_searches (search's own table), and the one check a saved search needs of a collection (read contract). */
@Injectable()
export class SavedSearchesRepository {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  /**
   * Saves the search unless the user already keeps `max` in the workspace (null then, nothing
   * written). Creates are serialised per user and workspace (an advisory lock in the
   * transaction), so the cap holds under concurrency.
   */
  insertWithin(data: NewSavedSearch, max: number): Promise<SavedSearchRow | null> {
    return this.db.$transaction((tx) =>
      createBelowCap(
        tx,
        {
          lockKey: `saved-searches-of:${data.workspaceId}:${data.userId}`,
          max,
          count: () => tx.savedSearch.count({ where: { workspaceId: data.workspaceId, userId: data.userId } }),
        },
        () => tx.savedSearch.create({ data }),
      ),
    );
  }

  /** The user's saved searches of the workspace, oldest first. */
  async listOf(workspaceId: string, userId: string): Promise<SavedSearchRow[]> {
    return this.db.savedSearch.findMany({
      where: { workspaceId, userId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  async findById(id: string): Promise<SavedSearchRow | null> {
    return this.db.savedSearch.findUnique({ where: { id } });
  }

  async delete(id: string, userId: string): Promise<void> {
    await this.db.savedSearch.deleteMany({ where: { id, userId } });
  }

  /** True when the collection exists in this workspace. */
  async collectionExists(workspaceId: string, collectionId: string): Promise<boolean> {
    const found = await this.db.$queryRaw<unknown[]>`
      SELECT 1 FROM search_read.collections WHERE id = ${collectionId}::uuid AND workspace_id = ${workspaceId}::uuid`;
    return found.length > 0;
  }
}
