import { Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { invalidField } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FILE_KINDS } from '../domain/file-kind.js';
import { FILE_STATUSES } from '../domain/file-status.js';
import { FILE_LIST_PAGE_DEFAULT, FILE_LIST_PAGE_MAX, FILE_LIST_OFFSET_MAX } from '../files-limits.js';
import { FilesRepository } from '../persistence/files.repository.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/** A workspace's files, newest first, of one status or kind if asked (docs/files.md, "Listing"). */
@Injectable()
export class FileListingHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
  ) {}

  @Handles(FilesService.method.listFiles)
  async list(input: RequestOf<typeof FilesService, 'listFiles'>, context: RequestContext) {
    const limit = input.limit || FILE_LIST_PAGE_DEFAULT;
    if (limit < 1 || limit > FILE_LIST_PAGE_MAX) {
      throw invalidField('limit', `must be 1 to ${FILE_LIST_PAGE_MAX}`);
    }
    if (input.offset < 0 || input.offset > FILE_LIST_OFFSET_MAX) {
      throw invalidField('offset', `must be 0 to ${FILE_LIST_OFFSET_MAX}`);
    }
    if (input.status && !FILE_STATUSES.includes(input.status as never)) {
      throw invalidField('status', `must be one of ${FILE_STATUSES.join(', ')}`);
    }
    if (input.kind && !FILE_KINDS.includes(input.kind as never)) {
      throw invalidField('kind', `must be one of ${FILE_KINDS.join(', ')}`);
    }
    const { workspaceId } = await this.records.authorizeWorkspace(context, input.workspaceId, 'files:read');
    const filter = { status: input.status || undefined, kind: input.kind || undefined };
    const [rows, totalCount] = await Promise.all([
      this.files.listNewest(workspaceId, filter, limit, input.offset),
      this.files.countListed(workspaceId, filter),
    ]);
    return { files: rows.map(fileView), totalCount };
  }
}
