import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_DB, type SearchDb } from './search-database.js';

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

  async countOf(workspaceId: string, userId: string): Promise<number> {
    return this.db.savedSearch.count({ where: { workspaceId, userId } });
  }

  async insert(data: NewSavedSearch): Promise<SavedSearchRow> {
    return this.db.savedSearch.create({ data });
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
