import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { WorkspacesService, WorkspaceTransfersService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { AppConfig } from '@kw/platform-config';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { ArchiveError } from '../domain/workspace-archive.js';
import { TransfersRepository, type TransferRow } from '../persistence/transfers.repository.js';
import { importArchiveKey, transferView } from './portability/transfer-view.js';
import { WorkspaceExport } from './portability/workspace-export.js';
import { ImportWriteError, WorkspaceImport } from './portability/workspace-import.js';
import { WorkspaceGate } from './workspace-gate.js';

const transferNotFound = () => new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: 'Transfer not found' });

/**
 * Portable workspaces (docs/portable-workspaces.md): export and import jobs, owners only
 * (`workspaces:write`, which only owners hold). A job runs in this process after the call
 * answers; its row shows progress, and the workspace's owners are told when it ends.
 */
@Injectable()
export class TransfersHandlers implements OnApplicationBootstrap {
  constructor(
    private readonly transfers: TransfersRepository,
    private readonly exporter: WorkspaceExport,
    private readonly importer: WorkspaceImport,
    private readonly gate: WorkspaceGate,
    private readonly client: ServiceClient,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'EXPORT_ARCHIVE_TTL_MS'>,
  ) {}

  private get archiveTtlMs(): number {
    return this.config.EXPORT_ARCHIVE_TTL_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    const interrupted = await this.transfers.failInterrupted();
    if (interrupted > 0)
      this.logger.warn({ interrupted }, 'workspace transfers interrupted by a restart marked failed');
  }

  @Handles(WorkspaceTransfersService.method.startExport)
  async startExport(input: RequestOf<typeof WorkspaceTransfersService, 'startExport'>, context: RequestContext) {
    // An export is what a move copies: served while the workspace is read-only for it.
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      duringMove: true,
    });
    const job = await this.transfers.create({ workspaceId, kind: 'export', createdBy: userId });
    this.inBackground(job, () => this.exporter.run(job));
    return { transfer: transferView(job, this.archiveTtlMs) };
  }

  @Handles(WorkspaceTransfersService.method.beginImport)
  async beginImport(input: RequestOf<typeof WorkspaceTransfersService, 'beginImport'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      moveImport: true,
    });
    const id = randomUUID();
    const archiveKey = importArchiveKey(workspaceId, id);
    const job = await this.transfers.create({ id, workspaceId, kind: 'import', createdBy: userId, archiveKey });
    return { transfer: transferView(job, this.archiveTtlMs), archiveKey };
  }

  @Handles(WorkspaceTransfersService.method.startImport)
  async startImport(input: RequestOf<typeof WorkspaceTransfersService, 'startImport'>, context: RequestContext) {
    const gate = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', { moveImport: true });
    const { workspaceId } = gate;
    if (!['', 'archive', 'markdown'].includes(input.format))
      throw new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: 'format: archive or markdown',
        param: 'format',
      });
    const found = await this.findImport(input.transferId, workspaceId);
    const job = await this.transfers.uploaded(found.id, input.archiveBytes);
    if (!job) throw new AppError({ status: 409, code: ErrorCode.CONFLICT, message: `The import is ${found.status}` });
    const options = { skipFiles: input.skipFiles, format: input.format };
    // A move's import into this plane: its writes pass the gate while the workspace is still placed on its source.
    const jobContext = gate.moveImport ? { ...context, moveImportOf: workspaceId } : context;
    this.inBackground(job, async () => {
      try {
        return await this.importer.run(job, await this.importer.load(job, options), jobContext);
      } finally {
        await this.importer
          .discardArchive(job)
          .catch((err: unknown) => this.logger.warn({ err }, 'import archive not deleted'));
      }
    });
    return { transfer: transferView(job, this.archiveTtlMs) };
  }

  @Handles(WorkspaceTransfersService.method.abortImport)
  async abortImport(input: RequestOf<typeof WorkspaceTransfersService, 'abortImport'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      moveImport: true,
    });
    const found = await this.findImport(input.transferId, workspaceId);
    if (found.status === 'uploading')
      await this.transfers.finish(found.id, { status: 'failed', error: input.reason || 'the upload failed' });
    return {};
  }

  @Handles(WorkspaceTransfersService.method.getTransfer)
  async get(input: RequestOf<typeof WorkspaceTransfersService, 'getTransfer'>, context: RequestContext) {
    // Reading a job changes nothing: served while the workspace moves, on either plane.
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      duringMove: true,
      moveImport: true,
    });
    const row = isUuid(input.transferId) ? await this.transfers.find(input.transferId, workspaceId, input.kind) : null;
    if (!row) throw transferNotFound();
    return {
      transfer: transferView(row, this.archiveTtlMs),
      archiveKey: row.kind === 'export' && row.status === 'done' ? row.archiveKey! : '',
    };
  }

  private async findImport(transferId: string, workspaceId: string): Promise<TransferRow> {
    const row = isUuid(transferId) ? await this.transfers.find(transferId, workspaceId, 'import') : null;
    if (!row) throw transferNotFound();
    return row;
  }

  /** Runs the job after the answer; a failure is the job's state (with where an archive is damaged), never a crash. */
  private inBackground(job: TransferRow, work: () => Promise<TransferRow>): void {
    setImmediate(() => {
      void work()
        .catch(async (err: unknown) => {
          const known = err instanceof ArchiveError || err instanceof ImportWriteError || AppError.isAppError(err);
          if (!known) this.logger.error({ err, transferId: job.id }, 'workspace transfer failed');
          return this.transfers.finish(job.id, {
            status: 'failed',
            error: known ? (err as Error).message : 'internal error; see the logs',
          });
        })
        .then((finished) => this.tellOwners(finished))
        .catch((err: unknown) => this.logger.warn({ err, transferId: job.id }, 'workspace transfer not recorded'));
    });
  }

  private async tellOwners(job: TransferRow): Promise<void> {
    await this.client
      .call(WorkspacesService.method.notifyWorkspaceOwners, {
        workspaceId: job.workspaceId,
        kind: 'workspace.transfer',
        payloadJson: JSON.stringify({
          transferId: job.id,
          kind: job.kind,
          status: job.status,
          error: job.error ?? undefined,
        }),
      })
      // A Leaf has no workspaces component to tell: the status route still says it.
      .catch((err: unknown) => this.logger.debug({ err, transferId: job.id }, 'owners not told of a transfer'));
  }
}
