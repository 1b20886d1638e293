import { Inject, Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';

/**
 * Internal (no HTTP route): a moved workspace's copy on this plane is removed
 * (docs/portable-workspaces.md#moving): its files, their chunks and attachments, and their
 * bytes. Idempotent.
 */
@Injectable()
export class WorkspacePurgeHandlers {
  constructor(
    private readonly files: FilesRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @Handles(FilesService.method.purgeWorkspaceFiles)
  async purge(input: RequestOf<typeof FilesService, 'purgeWorkspaceFiles'>) {
    if (!isUuid(input.workspaceId)) throw badRequest('workspace_id must be a UUID');
    const keys = await this.files.storageKeysIn(input.workspaceId);
    const files = await this.files.purgeWorkspace(input.workspaceId);
    for (const key of keys) await this.storage.delete(key);
    return { files };
  }
}
