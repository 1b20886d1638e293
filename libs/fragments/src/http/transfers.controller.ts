import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WorkspaceTransfersService, type Transfer } from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { declaredContentType, NoStore } from '@kw/platform-http';
import { BLOB_STORAGE, BlobTooLargeError, type BlobStorage } from '@kw/platform-storage';
import { ServiceClient } from '@kw/platform-transport';
import { WORKSPACE_ARCHIVE_MAX_BYTES } from '../fragments-limits.js';
import { ImportQueryDto, TransferResponseDto, type TransferDto } from './dto/transfer.dto.js';

const M = WorkspaceTransfersService.method;
const OWNERS = 'Owners of the workspace (scope `workspaces:write`).';

function transferJson(t: Transfer | undefined): TransferDto {
  const total = t?.total ?? 0;
  const done = t?.done ?? 0;
  return {
    id: t?.id ?? '',
    workspaceId: t?.workspaceId ?? '',
    kind: t?.kind ?? '',
    status: t?.status ?? '',
    progress: { done, total, percent: total > 0 ? Math.floor((done * 100) / total) : t?.status === 'done' ? 100 : 0 },
    error: t?.error || null,
    result: JSON.parse(t?.resultJson || '{}') as Record<string, unknown>,
    archiveBytes: t?.archiveBytes || null,
    createdAt: t?.createdAt ?? '',
    finishedAt: t?.finishedAt || null,
    expiresAt: t?.expiresAt || null,
  };
}

/** Portable workspaces (docs/portable-workspaces.md): export and import jobs and the archive. */
@ApiTags('Portable workspaces')
@ApiParam({ name: 'id', format: 'uuid', description: 'The workspace' })
@Controller('api/workspaces/:id')
export class TransfersController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @Post('exports')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Export the workspace',
    description: `Starts a background export: 202 with the job (\`processing\`, progress); poll it, then download the archive. ${OWNERS}`,
  })
  @ApiAcceptedResponse({ type: TransferResponseDto })
  async startExport(@Param('id') workspaceId: string): Promise<TransferResponseDto> {
    const { transfer } = await this.client.call(M.startExport, { workspaceId });
    return { success: true, transfer: transferJson(transfer) };
  }

  @Get('exports/:transferId')
  @ApiOperation({ summary: 'An export job: status and progress', description: OWNERS })
  @ApiOkResponse({ type: TransferResponseDto })
  async getExport(@Param('id') workspaceId: string, @Param('transferId') transferId: string) {
    return this.get(workspaceId, transferId, 'export');
  }

  @Get('exports/:transferId/download')
  // The whole workspace: no cache, shared or the browser's, may keep a copy.
  @NoStore()
  @ApiOperation({
    summary: 'Download an export’s archive',
    description: `The zip (format in docs/portable-workspaces.md). 409 while the job is not done, and once it expired. ${OWNERS}`,
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async download(
    @Param('id') workspaceId: string,
    @Param('transferId') transferId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { transfer, archiveKey } = await this.client.call(M.getTransfer, { workspaceId, transferId, kind: 'export' });
    if (!archiveKey)
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message:
          transfer?.status === 'expired'
            ? 'The export expired: its archive was deleted (EXPORT_ARCHIVE_TTL_MS after it finished). Start a new export'
            : `The export is ${transfer?.status ?? 'not done'}: download it once it is done`,
      });
    const body = await this.storage.get(archiveKey);
    await reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="workspace-${workspaceId}.zip"`)
      .header('content-length', String(transfer!.archiveBytes))
      .send(body);
  }

  @Post('imports')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Import an archive into the workspace',
    description:
      `The body is the archive (\`application/zip\`, at most ${WORKSPACE_ARCHIVE_MAX_BYTES / 1024 / 1024} MiB) of an export. ` +
      'Starts a background import: 202 with the job; the archive is checked whole before anything is written, and ' +
      `importing the same archive again creates nothing new. ${OWNERS}`,
  })
  @ApiConsumes('application/zip')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiAcceptedResponse({ type: TransferResponseDto })
  async startImport(
    @Param('id') workspaceId: string,
    @Query() query: ImportQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<TransferResponseDto> {
    // Authorized before a byte is read: BeginImport names where the archive goes.
    const begun = await this.client.call(M.beginImport, { workspaceId });
    const transferId = begun.transfer!.id;
    const abort = (reason: string) =>
      this.client.call(M.abortImport, { workspaceId, transferId, reason }).catch(() => undefined);
    if (declaredContentType(request) !== 'application/zip') {
      await abort('not sent as application/zip');
      throw new AppError({
        status: 415,
        code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        message: 'Send the archive as application/zip',
      });
    }
    let bytes: number;
    try {
      ({ bytes } = await this.storage.put(begun.archiveKey, request.raw, {
        maxBytes: WORKSPACE_ARCHIVE_MAX_BYTES,
        contentType: 'application/zip',
      }));
    } catch (err) {
      const tooLarge = err instanceof BlobTooLargeError;
      await abort(tooLarge ? 'the archive is too large' : 'the upload did not complete');
      if (tooLarge)
        throw new AppError({
          status: 413,
          code: ErrorCode.PAYLOAD_TOO_LARGE,
          message: `The archive is larger than ${WORKSPACE_ARCHIVE_MAX_BYTES} bytes`,
        });
      throw err;
    }
    const { transfer } = await this.client.call(M.startImport, {
      workspaceId,
      transferId,
      archiveBytes: bytes,
      skipFiles: query.skipFiles ?? false,
      format: query.format ?? 'archive',
    });
    return { success: true, transfer: transferJson(transfer) };
  }

  @Get('imports/:transferId')
  @ApiOperation({ summary: 'An import job: status, progress and what it wrote', description: OWNERS })
  @ApiOkResponse({ type: TransferResponseDto })
  async getImport(@Param('id') workspaceId: string, @Param('transferId') transferId: string) {
    return this.get(workspaceId, transferId, 'import');
  }

  private async get(workspaceId: string, transferId: string, kind: string): Promise<TransferResponseDto> {
    const { transfer } = await this.client.call(M.getTransfer, { workspaceId, transferId, kind });
    return { success: true, transfer: transferJson(transfer) };
  }
}
