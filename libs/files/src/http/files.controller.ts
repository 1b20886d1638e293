import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FilesService, type FileRecord } from '@kw/contracts';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { textProblem } from '@kw/platform-http';
import { isUuid } from '@kw/platform-ids';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { ServiceClient } from '@kw/platform-transport';
import {
  FILE_CHUNKS_PAGE_DEFAULT,
  FILE_DESCRIPTION_MAX_CHARS,
  FILE_LIST_PAGE_DEFAULT,
  FILE_SEARCH_PAGE_DEFAULT,
  FILES_PER_UPLOAD_MAX,
  codePoints,
} from '../files-limits.js';
import {
  AttachmentDto,
  BulkDeleteFilesDto,
  BulkDeleteResultDto,
  FileChunksDto,
  FileChunksQueryDto,
  FileListPageDto,
  FileListQueryDto,
  FileResponseDto,
  FileSearchQueryDto,
  FileSearchResultDto,
  FileStatusDto,
  UpdateFileDto,
  UploadResponseDto,
} from './dto/file.dto.js';
import { sendFile } from './download/send-file.js';
import { fileJson } from './presenters.js';
import { multipartParts } from './upload/multipart-parts.js';
import { storeUpload } from './upload/store-upload.js';

const M = FilesService.method;
const READ = 'Workspace members and readers of a public workspace; tokens with `files:read`.';
const WRITE =
  'Owners and collaborators, contributors on their own files; tokens with `files:write`. A file of a workspace in a hosted zone answers 409 FILES_UNSUPPORTED_IN_HOSTED_ZONE.';

const UPLOAD_SCHEMA = {
  type: 'object',
  required: ['workspaceId', 'file'],
  properties: {
    workspaceId: { type: 'string', format: 'uuid', description: 'Must come before the file parts' },
    fragmentId: { type: 'string', format: 'uuid', description: 'Attach every file to this fragment (same workspace)' },
    description: { type: 'string', maxLength: FILE_DESCRIPTION_MAX_CHARS },
    file: { type: 'array', items: { type: 'string', format: 'binary' }, maxItems: FILES_PER_UPLOAD_MAX },
  },
};

@ApiTags('Files')
@Controller('api/files')
export class FilesController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @Post('upload')
  @ApiOperation({
    summary: 'Upload files',
    description:
      'multipart/form-data, streamed to storage as it arrives. `workspaceId` (and the optional `fragmentId`, ' +
      '`description`) must come before the `file` parts. Each file is answered `processing`; poll ' +
      '`GET /api/files/{id}/status`. 413 PAYLOAD_TOO_LARGE as soon as a file passes `FILES_MAX_BYTES`, 413 ' +
      'QUOTA_EXCEEDED past the workspace quota; when one file of several is refused, none is kept. ' +
      WRITE,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_SCHEMA })
  @ApiCreatedResponse({ type: UploadResponseDto })
  async upload(@Req() request: FastifyRequest): Promise<UploadResponseDto> {
    if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
      throw new AppError({ status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: 'Send multipart/form-data' });
    }
    const fields = { workspaceId: '', fragmentId: '', description: '' };
    const stored: FileRecord[] = [];
    try {
      const parts = multipartParts(request.raw, { files: FILES_PER_UPLOAD_MAX, fields: 10, fieldBytes: 8_192 });
      for await (const part of parts) {
        if (part.type === 'field') {
          if (part.name in fields) fields[part.name as keyof typeof fields] = part.value.trim();
          continue;
        }
        if (part.name !== 'file' && part.name !== 'files') {
          part.stream.resume();
          continue;
        }
        checkFields(fields);
        stored.push(await storeUpload(this.client, this.storage, { ...part, declaredMimeType: part.mimeType }, fields));
      }
    } catch (err) {
      // One upload is one write: files stored before the refusal are removed again.
      for (const file of stored) await this.client.call(M.deleteFile, { fileId: file.id }).catch(() => undefined);
      throw err;
    }
    if (stored.length === 0) throw invalidField('file', 'is required (no `file` part was sent)');
    const files = stored.map(fileJson);
    return { success: true, files, file: files[0]! };
  }

  @Get()
  @ApiOperation({
    summary: "List a workspace's files",
    description: `Newest first, optionally of one \`status\` or \`kind\`; uploads still running are not listed. ${READ}`,
  })
  @ApiOkResponse({ type: FileListPageDto })
  async list(@Query() query: FileListQueryDto): Promise<FileListPageDto> {
    const limit = query.limit ?? FILE_LIST_PAGE_DEFAULT;
    const offset = query.offset ?? 0;
    const { files, totalCount } = await this.client.call(M.listFiles, {
      workspaceId: query.workspaceId,
      status: query.status ?? '',
      kind: query.kind ?? '',
      limit,
      offset,
    });
    const items = files.map(fileJson);
    return { success: true, items, count: items.length, totalCount, limit, offset };
  }

  @Get('search')
  @ApiOperation({
    summary: 'Search files',
    description: `By part of the name (case-insensitive), by words of the extracted text (any word, stemmed, ranked by BM25) and by meaning (chunk vectors), in workspace search's modes; name matches first. ${READ}`,
  })
  @ApiOkResponse({ type: FileSearchResultDto })
  async search(@Query() query: FileSearchQueryDto): Promise<FileSearchResultDto> {
    const limit = query.limit ?? FILE_SEARCH_PAGE_DEFAULT;
    const offset = query.offset ?? 0;
    const { hits, totalCount } = await this.client.call(M.searchFiles, {
      workspaceId: query.workspaceId,
      query: query.q,
      limit,
      offset,
      mode: query.mode ?? 'hybrid',
    });
    const items = hits.map((h) => ({
      file: fileJson(h.file!),
      score: h.score,
      matched: h.matched.split(',').filter(Boolean),
      snippet: h.snippet,
      ...(h.chunk === undefined ? {} : { chunk: h.chunk }),
    }));
    return { success: true, items, count: items.length, totalCount, limit, offset };
  }

  @Post('bulk-delete')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete several files',
    description: `Each id is answered on its own (\`deleted\`, or the error code it got); others are still deleted. ${WRITE}`,
  })
  @ApiOkResponse({ type: BulkDeleteResultDto })
  async bulkDelete(@Body() body: BulkDeleteFilesDto): Promise<BulkDeleteResultDto> {
    const { outcomes } = await this.client.call(M.bulkDeleteFiles, { fileIds: body.ids });
    const results = outcomes.map((o) => ({
      id: o.fileId,
      deleted: o.deleted,
      ...(o.deleted ? {} : { code: o.errorCode, message: o.errorMessage }),
    }));
    return { success: true, deleted: results.filter((r) => r.deleted).length, results };
  }

  @Get(':id')
  @ApiOperation({ summary: 'File metadata', description: `No download URL: bytes come from /download. ${READ}` })
  @ApiOkResponse({ type: FileResponseDto })
  async get(@Param('id') id: string): Promise<FileResponseDto> {
    const { file } = await this.client.call(M.getFile, { fileId: id });
    return { success: true, file: fileJson(file!) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename or describe a file', description: `Fields left out stay. ${WRITE}` })
  @ApiOkResponse({ type: FileResponseDto })
  async update(@Param('id') id: string, @Body() body: UpdateFileDto): Promise<FileResponseDto> {
    const { file } = await this.client.call(M.updateFile, {
      fileId: id,
      name: body.name,
      description: body.description,
    });
    return { success: true, file: fileJson(file!) };
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a file',
    description: `Its bytes, extracted text and attachments go with it. ${WRITE}`,
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { success: { type: 'boolean' } } } })
  async delete(@Param('id') id: string): Promise<{ success: boolean }> {
    await this.client.call(M.deleteFile, { fileId: id });
    return { success: true };
  }

  @Get(':id/download')
  @ApiOperation({
    summary: 'Download a file',
    description:
      'The stored bytes, streamed, as an attachment with a safe UTF-8 file name. The SHA-256 is the ETag ' +
      '(If-None-Match answers 304: `*`, a list, weak comparison); one `Range: bytes=a-b` answers 206, a range past the end (any range of an empty file) 416. ' +
      READ,
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async download(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { file } = await this.client.call(M.getFile, { fileId: id });
    await sendFile(this.storage, file!, request, reply);
  }

  @Get(':id/status')
  @ApiOperation({
    summary: 'Processing status',
    description: `processing, ready, failed (with the reason) or cancelled; pages read so far for a PDF. ${READ}`,
  })
  @ApiOkResponse({ type: FileStatusDto })
  async status(@Param('id') id: string): Promise<FileStatusDto> {
    const { file } = await this.client.call(M.getFile, { fileId: id });
    return statusJson(file!);
  }

  @Get(':id/chunks')
  @ApiOperation({
    summary: "Read the file's text",
    description:
      "The extracted text as the chunks files search ranks, in order from `offset` (a search hit's `chunk`): about " +
      '1,000 characters each, neighbours overlapping by a sentence or two. A file not ready (processing, failed, ' +
      `cancelled) or without text (an image) has none. ${READ}`,
  })
  @ApiOkResponse({ type: FileChunksDto })
  async chunks(@Param('id') id: string, @Query() query: FileChunksQueryDto): Promise<FileChunksDto> {
    const limit = query.limit ?? FILE_CHUNKS_PAGE_DEFAULT;
    const offset = query.offset ?? 0;
    const { file, chunks, totalCount } = await this.client.call(M.readFileChunks, { fileId: id, offset, limit });
    const items = chunks.map((c) => ({ ordinal: c.ordinal, text: c.text }));
    return { success: true, file: fileJson(file!), items, count: items.length, totalCount, limit, offset };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel processing',
    description: `Stops the text extraction now; the file stays, \`cancelled\`. 409 when it is not processing. ${WRITE}`,
  })
  @ApiOkResponse({ type: FileStatusDto })
  async cancel(@Param('id') id: string): Promise<FileStatusDto> {
    const { file } = await this.client.call(M.cancelFile, { fileId: id });
    return statusJson(file!);
  }

  @Post(':id/attachments')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attach to a fragment',
    description: `A fragment of the same workspace; idempotent. ${WRITE}`,
  })
  @ApiOkResponse({ type: FileResponseDto })
  async attach(@Param('id') id: string, @Body() body: AttachmentDto): Promise<FileResponseDto> {
    const { file } = await this.client.call(M.attachFile, { fileId: id, fragmentId: body.fragmentId });
    return { success: true, file: fileJson(file!) };
  }

  @Delete(':id/attachments')
  @ApiOperation({ summary: 'Detach from a fragment', description: `404 when it was not attached. ${WRITE}` })
  @ApiBody({ type: AttachmentDto })
  @ApiOkResponse({ type: FileResponseDto })
  async detach(@Param('id') id: string, @Body() body: AttachmentDto): Promise<FileResponseDto> {
    const { file } = await this.client.call(M.detachFile, { fileId: id, fragmentId: body.fragmentId });
    return { success: true, file: fileJson(file!) };
  }
}

/** The fields read so far, when the first file part arrives: a missing one may just come too late. */
function checkFields(fields: { workspaceId: string; fragmentId: string; description: string }): void {
  // A streamed multipart body passes no input guard: its fields are checked as a JSON body's would be.
  for (const [field, value] of Object.entries(fields)) {
    const problem = textProblem(value);
    if (problem) throw invalidField(field, problem);
  }
  if (!fields.workspaceId) {
    throw invalidField('workspaceId', 'is required, before the file parts');
  }
  if (!isUuid(fields.workspaceId)) throw invalidField('workspaceId', 'must be a UUID');
  if (fields.fragmentId && !isUuid(fields.fragmentId)) throw invalidField('fragmentId', 'must be a UUID');
  if (codePoints(fields.description) > FILE_DESCRIPTION_MAX_CHARS) {
    throw invalidField('description', `must be at most ${FILE_DESCRIPTION_MAX_CHARS} characters`);
  }
}

function statusJson(file: FileRecord): FileStatusDto {
  return {
    success: true,
    id: file.id,
    status: file.status,
    progress: { pagesDone: file.pagesDone, pagesTotal: file.pagesTotal },
    ...(file.failureReason ? { failureReason: file.failureReason, failureMessage: file.failureMessage } : {}),
    chunkCount: file.chunkCount,
  };
}
