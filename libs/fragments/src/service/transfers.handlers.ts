import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { WorkspacesService, WorkspaceTransfersService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import type { AppConfig } from '@kw/platform-config';
import { PollingLoop } from '@kw/platform-outbox';
import { Handles, ServiceClient, type RequestOf } from '@kw/platform-transport';
import { ArchiveError } from '../domain/workspace-archive.js';
import { TransfersRepository, type EndedTransfer, type TransferRow } from '../persistence/transfers.repository.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { importArchiveKey, transferView } from './portability/transfer-view.js';
import { WorkspaceExport } from './portability/workspace-export.js';
import {
  ImportInterrupted,
  ImportWriteError,
  newImportTally,
  WorkspaceImport,
  type ImportTally,
} from './portability/workspace-import.js';
import { WorkspaceGate } from './workspace-gate.js';

/** Abandoned jobs failed in one statement; a full batch sweeps again at once. */
const SWEEP_BATCH = 100;

const transferNotFound = () => new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: 'Transfer not found' });

/** The sweep of abandoned jobs runs at least this often (more often for a shorter lease). */
const SWEEP_EVERY_MS = 5_000;

/**
 * Portable workspaces (docs/portable-workspaces.md): export and import jobs, owners only
 * (`workspaces:write`, which only owners hold). A job runs in this process after the call
 * answers; its row shows progress, and the workspace's owners are told when it ends.
 *
 * A job is held by its process with a lease (TRANSFER_LEASE_MS, renewed while it runs), as the
 * files worker holds a file: every process of the component fails, at start and every few
 * seconds, the jobs whose lease ran out (their process died), so a crash never leaves a job
 * `processing` for ever (it would refuse the workspace's imports and a move's purge), and a
 * process starting never touches another live process's jobs.
 */
@Injectable()
export class TransfersHandlers implements OnApplicationBootstrap, OnModuleDestroy {
  /** Jobs running in this process, until recorded. */
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private readonly sweep: PollingLoop;

  constructor(
    private readonly transfers: TransfersRepository,
    private readonly exporter: WorkspaceExport,
    private readonly importer: WorkspaceImport,
    private readonly gate: WorkspaceGate,
    private readonly client: ServiceClient,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG)
    private readonly config: Pick<
      AppConfig,
      'EXPORT_ARCHIVE_TTL_MS' | 'TRANSFER_LEASE_MS' | 'REQUEST_RECEIVE_TIMEOUT_MS'
    >,
  ) {
    this.sweep = new PollingLoop(async () => (await this.failAbandoned()) === SWEEP_BATCH, {
      intervalMs: Math.min(SWEEP_EVERY_MS, config.TRANSFER_LEASE_MS),
      maxErrorPauseMs: 60_000,
      onError: (err, retryInMs) => this.logger.warn({ err, retryInMs }, 'abandoned transfers sweep failed'),
    });
  }

  /** A running job is this process's until then. */
  private lease(): Date {
    return new Date(Date.now() + this.config.TRANSFER_LEASE_MS);
  }

  private get archiveTtlMs(): number {
    return this.config.EXPORT_ARCHIVE_TTL_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.failAbandoned();
    this.sweep.start();
  }

  /** Fails the jobs whose process died (their lease ran out) and tells their owners; how many. */
  private async failAbandoned(): Promise<number> {
    const failed = await this.transfers.failAbandoned(new Date(), SWEEP_BATCH);
    if (failed.length > 0)
      this.logger.warn(
        { transferIds: failed.map((t) => t.id) },
        'workspace transfers whose process stopped marked failed',
      );
    for (const job of failed) await this.tellOwners(job);
    return failed.length;
  }

  /**
   * The process stops: a running import ends at its next record, recorded as interrupted with
   * what it wrote, and shutdown waits for that record before the database closes (it closes in
   * onApplicationShutdown, after this hook).
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.sweep.stop();
    await Promise.allSettled([...this.running]);
  }

  @Handles(WorkspaceTransfersService.method.startExport)
  async startExport(input: RequestOf<typeof WorkspaceTransfersService, 'startExport'>, context: RequestContext) {
    // An export is what a move copies: served while the workspace is read-only for it.
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      duringMove: true,
    });
    const job = await this.transfers.create({ workspaceId, kind: 'export', createdBy: userId }, this.lease());
    this.inBackground(job, { lost: false }, () => this.exporter.run(job));
    return { transfer: transferView(job, this.archiveTtlMs) };
  }

  @Handles(WorkspaceTransfersService.method.beginImport)
  async beginImport(input: RequestOf<typeof WorkspaceTransfersService, 'beginImport'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'workspaces:write', {
      moveImport: true,
    });
    const id = randomUUID();
    const archiveKey = importArchiveKey(workspaceId, id);
    // One import at a time per workspace: the index refuses a second one atomically.
    // Uploading, it is held for as long as its upload may take (the gateway's receive timeout).
    const uploadLease = new Date(Date.now() + this.config.REQUEST_RECEIVE_TIMEOUT_MS + this.config.TRANSFER_LEASE_MS);
    const job = await this.transfers
      .create({ id, workspaceId, kind: 'import', createdBy: userId, archiveKey }, uploadLease)
      .catch(async (err: unknown) => {
        if (!isUniqueViolation(err)) throw err;
        const running = await this.transfers.activeImport(workspaceId);
        throw new AppError({
          status: 409,
          code: ErrorCode.CONFLICT,
          message: 'An import into this workspace is running already; start again once it ended',
          details: { transferId: running?.id ?? null },
        });
      });
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
    const job = await this.transfers.uploaded(found.id, input.archiveBytes, this.lease());
    if (!job) throw new AppError({ status: 409, code: ErrorCode.CONFLICT, message: `The import is ${found.status}` });
    const options = { skipFiles: input.skipFiles, format: input.format };
    // A move's import into this plane: its writes pass the gate while the workspace is still placed on its source.
    const jobContext = gate.moveImport ? { ...context, moveImportOf: workspaceId } : context;
    const held = { lost: false };
    const tally = newImportTally(() => this.stopping || held.lost);
    this.inBackground(
      job,
      held,
      async () => {
        try {
          return await this.importer.run(job, await this.importer.load(job, options), jobContext, tally);
        } finally {
          await this.importer
            .discardArchive(job)
            .catch((err: unknown) => this.logger.warn({ err }, 'import archive not deleted'));
        }
      },
      tally,
    );
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

  /**
   * Runs the job after the answer; a failure is the job's state (with where an archive is damaged,
   * and an import's progress and counts so far), never a crash.
   */
  private inBackground(
    job: TransferRow,
    held: { lost: boolean },
    work: () => Promise<TransferRow | null>,
    tally?: ImportTally,
  ): void {
    // The lease, renewed while the job runs; lost (another process failed the job as abandoned:
    // this one was cut off from the database longer than the lease), an import stops at its next record.
    const renew = setInterval(
      () =>
        void this.transfers
          .renew(job.id, this.lease())
          .then((mine) => {
            if (!mine) held.lost = true;
          })
          .catch((err: unknown) => this.logger.warn({ err, transferId: job.id }, 'transfer lease not renewed')),
      Math.max(250, Math.floor(this.config.TRANSFER_LEASE_MS / 3)),
    );
    const ran = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch(async (err: unknown) => {
        const known =
          err instanceof ArchiveError ||
          err instanceof ImportWriteError ||
          err instanceof ImportInterrupted ||
          AppError.isAppError(err);
        if (!known) this.logger.error({ err, transferId: job.id }, 'workspace transfer failed');
        if (err instanceof ImportInterrupted) this.logger.warn({ transferId: job.id }, 'workspace import interrupted');
        return this.transfers.finish(job.id, {
          status: 'failed',
          error: known ? (err as Error).message : 'internal error; see the logs',
          ...(tally && { done: tally.done, total: tally.total, result: tally.result }),
        });
      })
      // Null: it had ended already (failed as abandoned), and its owners were told then.
      .then(async (finished) => {
        if (finished) await this.tellOwners(finished);
      })
      .catch((err: unknown) => this.logger.warn({ err, transferId: job.id }, 'workspace transfer not recorded'))
      .finally(() => {
        clearInterval(renew);
        this.running.delete(ran);
      });
    this.running.add(ran);
  }

  private async tellOwners(job: EndedTransfer): Promise<void> {
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
