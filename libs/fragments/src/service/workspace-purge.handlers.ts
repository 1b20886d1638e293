import { Inject, Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import { AppError, badRequest, ErrorCode } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspacePurgeRepository } from '../persistence/workspace-purge.repository.js';

/**
 * Internal (no HTTP route; the bus is the platform's own network): the workspaces component,
 * or a Leaf's heartbeat, removes a moved workspace's copy that is no longer its own
 * (docs/portable-workspaces.md#moving). Idempotent: a second call finds nothing. Refused (409)
 * while an import into the workspace still runs, so nothing it writes outlives the purge.
 */
@Injectable()
export class WorkspacePurgeHandlers {
  constructor(
    private readonly purges: WorkspacePurgeRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Handles(FragmentsService.method.purgeWorkspaceFragments)
  async purge(input: RequestOf<typeof FragmentsService, 'purgeWorkspaceFragments'>) {
    if (!isUuid(input.workspaceId)) throw badRequest('workspace_id must be a UUID');
    // Archives hold the content too; their keys are read before the rows that name them go.
    const archives = await this.purges.archiveKeys(input.workspaceId);
    const fragments = await this.purges.purge(input.workspaceId);
    // The import stops at its next write (the gate refuses it once the move ended); the caller retries.
    if (fragments === 'importRunning')
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: 'An import into this workspace is still running; purge it again once the import ended',
      });
    for (const key of archives) await this.storage.delete(key);
    this.logger.info({ workspaceId: input.workspaceId, fragments }, 'workspace fragments purged');
    return { fragments };
  }
}
