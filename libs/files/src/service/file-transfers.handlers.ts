import { Inject, Injectable } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import { BeginUploadRequestSchema, CompleteUploadRequestSchema, FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { BLOB_STORAGE, BlobTooLargeError, type BlobStorage } from '@kw/platform-storage';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { sniffFileKind } from '../domain/file-kind.js';
import { HeadCapture, pipeIntoHead, tooLarge } from '../domain/upload-bytes.js';
import { FilesRepository } from '../persistence/files.repository.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';
import { FilesHandlers } from './files.handlers.js';
import { FragmentLookup } from './fragment-lookup.js';

type Req<M extends keyof typeof FilesService.method> = RequestOf<typeof FilesService, M>;

const PAGE_MAX = 200;

/**
 * The files side of portable workspaces (docs/portable-workspaces.md): the read contract an
 * export lists a workspace's files (and their blob keys) through, and the import of one file
 * from bytes the importer staged, made exactly as an upload (reservation, quota, completion,
 * processing) and attached to its fragments.
 */
@Injectable()
export class FileTransfersHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly uploads: FilesHandlers,
    private readonly fragments: FragmentLookup,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @Handles(FilesService.method.listWorkspaceFiles)
  async list(input: Req<'listWorkspaceFiles'>, context: RequestContext) {
    const { workspaceId } = await this.records.authorizeWorkspace(context, input.workspaceId, 'files:read');
    const take = Math.min(Math.max(input.limit || PAGE_MAX, 1), PAGE_MAX);
    const rows = await this.files.listInWorkspace(workspaceId, take, Math.max(input.offset, 0));
    return { files: rows.map(fileView) };
  }

  @Handles(FilesService.method.importFile)
  async importFile(input: Req<'importFile'>, context: RequestContext) {
    const { workspaceId, userId } = await this.records.authorizeWorkspace(context, input.workspaceId, 'files:write');
    // Only the importer's own staging area of this workspace: never another file's blob.
    if (!input.stagedKey.startsWith(`transfers/${workspaceId}/`) || input.stagedKey.includes('..'))
      throw invalidField('stagedKey', 'must be a transfer blob of this workspace');
    for (const fragmentId of input.fragmentIds) await this.fragments.requireInWorkspace(fragmentId, workspaceId);
    const same = await this.files.findSame(workspaceId, input.fileName, input.sha256);
    if (same) {
      for (const fragmentId of input.fragmentIds) await this.files.attach(same.id, fragmentId, workspaceId, userId);
      return { file: fileView((await this.files.findById(same.id)) ?? same), created: false };
    }
    const begun = await this.uploads.beginUpload(
      create(BeginUploadRequestSchema, {
        workspaceId,
        fileName: input.fileName,
        declaredMimeType: input.mimeType,
        description: input.description,
      }),
      context,
    );
    const head = new HeadCapture();
    // A staged read that fails (or ends early) fails the write with its error, never goes unhandled.
    pipeIntoHead(await this.storage.get(input.stagedKey), head);
    const stored = await this.storage
      .put(begun.storageKey, head, {
        maxBytes: Number(begun.maxBytes),
      })
      .catch(async (err: unknown) => {
        await this.uploads.abortUpload({ fileId: begun.fileId } as Req<'abortUpload'>, context);
        // Past what the workspace has left: the upload's answer (403 PLAN_LIMIT_REACHED for the plan's storage).
        if (err instanceof BlobTooLargeError) throw tooLarge(begun);
        throw err;
      });
    if (stored.sha256 !== input.sha256) {
      await this.uploads.abortUpload({ fileId: begun.fileId } as Req<'abortUpload'>, context);
      throw new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: 'sha256: the staged bytes do not match',
        param: 'sha256',
      });
    }
    // Its type from its bytes, as an upload's: the archive's mimeType and kind only as declared ones.
    const sniffed = await sniffFileKind(head.head, input.fileName, input.mimeType);
    const { file } = await this.uploads.completeUpload(
      create(CompleteUploadRequestSchema, {
        fileId: begun.fileId,
        sizeBytes: BigInt(stored.bytes),
        sha256: stored.sha256,
        mimeType: sniffed.mimeType,
        kind: sniffed.kind,
      }),
      context,
    );
    for (const fragmentId of input.fragmentIds) await this.files.attach(begun.fileId, fragmentId, workspaceId, userId);
    const row = await this.files.findById(begun.fileId);
    return { file: row ? fileView(row) : file, created: true };
  }
}
