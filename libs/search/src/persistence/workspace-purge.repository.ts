import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_DB, type SearchDb } from './search-database.js';

/** Deletes what the search component holds of one workspace (its own tables only). */
@Injectable()
export class SearchPurgeRepository {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  async purge(workspaceId: string): Promise<void> {
    await this.db.$transaction([
      this.db.savedSearch.deleteMany({ where: { workspaceId } }),
      this.db.searchQueryLog.deleteMany({ where: { workspaceId } }),
      this.db.$executeRaw`DELETE FROM data.vector_index_sync WHERE workspace_id = ${workspaceId}::uuid`,
    ]);
  }
}
