import { Readable } from 'node:stream';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FilesService } from '@kw/contracts';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { AcceptsQueryKey, BearerOnly } from '@kw/platform-http';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { ServiceClient } from '@kw/platform-transport';
import { BYTE_PROXY_MAX_BYTES } from '../files-limits.js';
import { PutBytesDto, PutBytesResultDto } from './dto/file.dto.js';
import { sendFile } from './download/send-file.js';
import { storeUpload } from './upload/store-upload.js';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const DATA_URL = /^data:[^,;]*(?:;[^,;]*)*;base64,/i;

const proxyTooLarge = () =>
  new AppError({
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `The byte proxy carries files up to ${BYTE_PROXY_MAX_BYTES} bytes`,
    details: { limit: BYTE_PROXY_MAX_BYTES },
  });

/** The bytes of a base64 string or a `data:*;base64,` URL; 400 for anything else. */
export function decodeBase64Payload(value: string): Buffer {
  const raw = value.replace(DATA_URL, '').replace(/\s+/g, '');
  if (!BASE64.test(raw) || raw.length % 4 === 1) throw invalidField('base64', 'must be base64 (or a base64 data URL)');
  // Decoded size known before decoding: refuse without allocating.
  if (Math.floor((raw.length * 3) / 4) - (raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0) > BYTE_PROXY_MAX_BYTES) {
    throw proxyTooLarge();
  }
  return Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
}

/**
 * The workspace file byte proxy for embed parents (spec: Workspace file byte proxy): the same
 * files, read and written as whole byte payloads with a bearer token, or with an embed key in
 * `key` when the embed widget's frame bridges `kwChat.workspaceFiles` (docs/chat.md#embed-widget:
 * only where the configuration exposes workspace files to the parent).
 */
@ApiTags('Files')
@BearerOnly()
@AcceptsQueryKey('workspace-files')
@Controller('api/workspace-files')
export class WorkspaceFilesController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @Get(':fileId/bytes')
  @ApiOperation({
    summary: 'Read a file’s bytes',
    description:
      '401 without credentials, 403 when the credential may not read files of the workspace (a token without `files:read`), ' +
      '404 for a file the caller cannot see, 413 for a file over 50 MiB. Ranges and ETags as on /api/files/{id}/download.',
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async read(
    @Param('fileId') fileId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { file } = await this.client.call(FilesService.method.getFile, { fileId });
    if (Number(file!.sizeBytes) > BYTE_PROXY_MAX_BYTES) throw proxyTooLarge();
    await sendFile(this.storage, file!, request, reply);
  }

  @Post('bytes')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Store bytes as a workspace file',
    description:
      'JSON `{workspaceId, fileName, mimeType, base64}`; base64 may be a `data:*;base64,` URL. Up to 50 MiB decoded (413 above); ' +
      'this route alone accepts a JSON body up to FILES_PROXY_BODY_LIMIT_BYTES. The file is processed like an upload.',
  })
  @ApiCreatedResponse({ type: PutBytesResultDto })
  async put(@Body() body: PutBytesDto): Promise<PutBytesResultDto> {
    const bytes = decodeBase64Payload(body.base64);
    const file = await storeUpload(
      this.client,
      this.storage,
      { fileName: body.fileName, declaredMimeType: body.mimeType, stream: Readable.from([bytes]) },
      { workspaceId: body.workspaceId, fragmentId: '', description: '' },
    );
    return { ok: true, fileId: file.id, status: file.status };
  }
}
