import { Inject, Injectable } from '@nestjs/common';
import { SearchService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { SearchPurgeRepository } from '../../persistence/workspace-purge.repository.js';
import { VECTOR_INDEX_SYNC, type VectorIndexSync } from '../vector/vector-index.js';

/**
 * Internal (no HTTP route): a moved workspace's copy on this plane is removed
 * (docs/portable-workspaces.md#moving): its saved searches, query log, and the points an
 * external vector index holds of it. Idempotent.
 */
@Injectable()
export class SearchPurgeHandlers {
  constructor(
    private readonly purges: SearchPurgeRepository,
    @Inject(VECTOR_INDEX_SYNC) private readonly index: VectorIndexSync,
  ) {}

  @Handles(SearchService.method.purgeWorkspaceSearchData)
  async purge(input: RequestOf<typeof SearchService, 'purgeWorkspaceSearchData'>) {
    if (!isUuid(input.workspaceId)) throw badRequest('workspace_id must be a UUID');
    if (this.index.external) await this.index.deleteWorkspace(input.workspaceId);
    await this.purges.purge(input.workspaceId);
    return {};
  }
}
