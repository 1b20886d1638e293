import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { AccountLimits, LimitNotices } from '@kw/platform-entitlements';
import { isUuid } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';
import { safeFileName } from '../domain/file-name.js';
import { FILE_KINDS } from '../domain/file-kind.js';
import { declaredMediaType } from '../domain/media-type.js';
import { FILES_BULK_DELETE_MAX } from '../files-limits.js';
import { FileRecords, fileNotFound } from './file-records.js';
import { fileView } from './file-view.js';
import { FragmentLookup } from './fragment-lookup.js';
import { validDescription, validSha256 } from './file-input.js';
import { ProcessingJobs } from './processing-jobs.js';

type Req<M extends keyof typeof FilesService.method> = RequestOf<typeof FilesService, M>;

/** The key of a file's blob: one per file id, so deleting a file never touches another's bytes. */
export const storageKeyOf = (workspaceId: string, fileId: string) => `files/${workspaceId}/${fileId}`;

/** `limit` is always the quota, `used` the bytes the workspace holds, `left` what remains (docs/files.md). */
const quotaExceeded = (limit: number, used: number) =>
  new AppError({
    status: 413,
    code: ErrorCode.QUOTA_EXCEEDED,
    message: 'The workspace has no file storage left',
    details: { limit, used, left: Math.max(0, limit - used) },
  });

/**
 * The life of a file: the upload's reservation and completion (the HTTP edge stores the bytes
 * in between), metadata, deletion and cancellation. Contributors manage their own files, viewers
 * read; everything about a file the caller may not see answers 404.
 */
@Injectable()
export class FilesHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly fragments: FragmentLookup,
    private readonly jobs: ProcessingJobs,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: AccountLimits,
    private readonly notices: LimitNotices,
  ) {}

  @Handles(FilesService.method.beginUpload)
  async beginUpload(input: Req<'beginUpload'>, context: RequestContext) {
    const { workspaceId, userId, planHolderId } = await this.records.authorizeWorkspace(
      context,
      input.workspaceId,
      'files:write',
    );
    const description = validDescription(input.description);
    if (input.fragmentId) await this.fragments.requireInWorkspace(input.fragmentId, workspaceId);
    const { quota, full, limitedBy, plan } = await this.storageCap(planHolderId);
    const used = await this.files.usedBytes(workspaceId);
    if (used >= quota) throw full(used);
    const id = randomUUID();
    const storageKey = storageKeyOf(workspaceId, id);
    await this.files.reserve(
      {
        id,
        workspaceId,
        name: safeFileName(input.fileName),
        description,
        // Every way in (multipart, byte proxy, import): a declared type that is not a media type is none.
        declaredMimeType: declaredMediaType(input.declaredMimeType),
        storageKey,
        createdBy: userId,
      },
      input.fragmentId || null,
    );
    const fileCap = this.config.FILES_MAX_BYTES;
    const left = quota - used;
    return {
      fileId: id,
      storageKey,
      maxBytes: BigInt(Math.min(fileCap, left)),
      limitedBy: left < fileCap ? limitedBy : 'file',
      ...(left < fileCap && limitedBy === 'plan' && plan
        ? { planMaxBytes: BigInt(plan.max), planId: plan.planId }
        : {}),
      ...(left < fileCap && limitedBy === 'quota' ? { quotaBytes: BigInt(quota) } : {}),
    };
  }

  @Handles(FilesService.method.completeUpload)
  async completeUpload(input: Req<'completeUpload'>, context: RequestContext) {
    const { row, planHolderId } = await this.ownReservation(input.fileId, context);
    if (!FILE_KINDS.includes(input.kind as never))
      throw invalidField('kind', `must be one of ${FILE_KINDS.join(', ')}`);
    const { quota, full, plan } = await this.storageCap(planHolderId);
    const size = Number(input.sizeBytes);
    if (size < 0 || size > this.config.FILES_MAX_BYTES) {
      await this.discard(row.id, row.storageKey);
      const used = await this.files.usedBytes(row.workspaceId);
      throw size < 0 ? full(used) : quotaExceeded(quota, used);
    }
    // The quota itself is checked by complete(), under the usage row's lock, so racing uploads cannot pass it together.
    const completed = await this.files.complete(
      row.id,
      {
        sizeBytes: size,
        sha256: validSha256(input.sha256),
        mimeType: input.mimeType.slice(0, 255) || 'application/octet-stream',
        kind: input.kind,
      },
      quota,
    );
    if (!completed) throw fileNotFound();
    if ('overQuota' in completed) {
      await this.discard(row.id, row.storageKey);
      throw full(completed.overQuota.usedBefore);
    }
    if (plan) await this.notices.observe(row.workspaceId, 'storageBytes', completed.usedBytes, plan);
    return { file: fileView(completed.file) };
  }

  @Handles(FilesService.method.abortUpload)
  async abortUpload(input: Req<'abortUpload'>, context: RequestContext) {
    const { row } = await this.ownReservation(input.fileId, context);
    await this.discard(row.id, row.storageKey);
    return {};
  }

  @Handles(FilesService.method.getFile)
  async get(input: Req<'getFile'>, context: RequestContext) {
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:read');
    return { file: fileView(file) };
  }

  @Handles(FilesService.method.updateFile)
  async update(input: Req<'updateFile'>, context: RequestContext) {
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:write');
    const data: { name?: string; description?: string } = {};
    if (input.name !== undefined) data.name = safeFileName(input.name);
    if (input.description !== undefined) data.description = validDescription(input.description);
    return { file: fileView(Object.keys(data).length ? await this.files.update(file.id, data) : file) };
  }

  @Handles(FilesService.method.deleteFile)
  async delete(input: Req<'deleteFile'>, context: RequestContext) {
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:write');
    await this.remove(file.id, file.storageKey);
    return {};
  }

  @Handles(FilesService.method.bulkDeleteFiles)
  async bulkDelete(input: Req<'bulkDeleteFiles'>, context: RequestContext) {
    const ids = [...new Set(input.fileIds)];
    if (ids.length === 0 || ids.length > FILES_BULK_DELETE_MAX) {
      throw invalidField('fileIds', `must hold 1 to ${FILES_BULK_DELETE_MAX} ids`);
    }
    const outcomes = [];
    for (const fileId of ids) {
      try {
        const { file } = await this.records.authorizedFile(context, fileId, 'files:write');
        await this.remove(file.id, file.storageKey);
        outcomes.push({ fileId, deleted: true, errorCode: '', errorMessage: '' });
      } catch (err) {
        if (!AppError.isAppError(err) || err.status >= 500) throw err;
        outcomes.push({ fileId, deleted: false, errorCode: err.code, errorMessage: err.message });
      }
    }
    return { outcomes };
  }

  @Handles(FilesService.method.cancelFile)
  async cancel(input: Req<'cancelFile'>, context: RequestContext) {
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:write');
    if (!(await this.files.cancel(file.id))) {
      // What it is now: it may have become ready (or been deleted) since it was read above.
      const now = (await this.files.findById(file.id))?.status;
      if (!now) throw fileNotFound();
      throw new AppError({
        status: 409,
        code: ErrorCode.CONFLICT,
        message: `Only a file being processed can be cancelled (this one is ${now})`,
        details: { status: now },
      });
    }
    this.jobs.abort(file.id);
    const after = await this.files.findById(file.id);
    return { file: fileView(after ?? { ...file, status: 'cancelled' }) };
  }

  /** The caller's own reservation (the edge completes or aborts what the same caller began). */
  private async ownReservation(fileId: string, context: RequestContext) {
    const row = isUuid(fileId) ? await this.files.findById(fileId) : null;
    if (!row || row.status !== 'uploading') throw fileNotFound();
    const { userId, planHolderId } = await this.records.authorizeWorkspace(context, row.workspaceId, 'files:write', {
      hiddenAs: fileNotFound,
    });
    if (userId !== row.createdBy) throw fileNotFound();
    return { row, planHolderId };
  }

  /**
   * The workspace's storage: the lower of the plan's storageBytes (the workspace creator's
   * plan) and the deployment's FILES_WORKSPACE_QUOTA_BYTES, with the refusal that names it:
   * 403 PLAN_LIMIT_REACHED for the plan's, 413 QUOTA_EXCEEDED for the deployment's.
   */
  private async storageCap(planHolderId: string) {
    const deployment = this.config.FILES_WORKSPACE_QUOTA_BYTES;
    const cap = await this.limits.capOf(planHolderId, 'storageBytes', deployment);
    return {
      quota: cap.max,
      plan: cap.plan,
      limitedBy: cap.byPlan ? ('plan' as const) : ('quota' as const),
      full: cap.planRefusal ?? ((used: number) => quotaExceeded(deployment, used)),
    };
  }

  private async discard(id: string, storageKey: string): Promise<void> {
    await this.files.dropReservation(id);
    await this.storage.delete(storageKey);
  }

  /**
   * Row first (the file is gone for every reader), then the blob; a blob left by a crash here is
   * swept. A concurrent delete that removed the row first wins, and this one is 404.
   */
  private async remove(id: string, storageKey: string): Promise<void> {
    this.jobs.abort(id);
    if (!(await this.files.delete(id))) throw fileNotFound();
    await this.storage.delete(storageKey);
  }
}
