import { Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { invalidField } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';
import { FILE_CHUNKS_PAGE_DEFAULT, FILE_CHUNKS_PAGE_MAX } from '../files-limits.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';

/**
 * Reading a file's extracted text (docs/files.md, "Reading the text"): a page of the chunks it
 * was cut into for search, so that a search hit's chunk can be read with its neighbours without
 * downloading and parsing the original. A file still processing, failed or holding no text
 * (an image) answers no chunks and its status.
 */
@Injectable()
export class FileChunksHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
  ) {}

  @Handles(FilesService.method.readFileChunks)
  async read(input: RequestOf<typeof FilesService, 'readFileChunks'>, context: RequestContext) {
    const limit = input.limit || FILE_CHUNKS_PAGE_DEFAULT;
    if (limit < 1 || limit > FILE_CHUNKS_PAGE_MAX) {
      throw invalidField('limit', `must be 1 to ${FILE_CHUNKS_PAGE_MAX}`);
    }
    if (input.offset < 0) throw invalidField('offset', 'must be at least 0');
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:read');
    // Only a ready file's chunks are whole: processing writes them with its `ready` status.
    if (file.status !== 'ready') return { file: fileView(file), chunks: [], totalCount: 0 };
    const chunks = await this.files.chunks(file.id, input.offset, limit);
    return { file: fileView(file), chunks, totalCount: file.chunkCount };
  }
}
