import { Injectable } from '@nestjs/common';
import type { Action } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { WorkspaceGate, type Gate } from '@kw/platform-workspace-gate';
import { FilesRepository, type FileWithAttachments } from '../persistence/files.repository.js';

export const fileNotFound = () => notFound('File');

/**
 * Spec (Files): file operations are unsupported for Hosted Zone V1 workspaces. The gate's
 * HOSTED_ZONE_REQUIRED would send the client to a Leaf that has no files, so the files routes
 * answer this instead, only to a caller the workspace is visible to (the gate decided that).
 */
export function filesUnsupported(err: AppError): AppError {
  return new AppError({
    status: 409,
    code: ErrorCode.FILES_UNSUPPORTED_IN_HOSTED_ZONE,
    message: 'Files are not available for workspaces in a hosted zone (Hosted Zone V1); use a Cloud workspace',
    details: { hostedZoneId: err.details?.hostedZoneId ?? '' },
  });
}

/** Authorizes file actions: every refusal of a file id the caller may not see reads as a missing file. */
@Injectable()
export class FileRecords {
  constructor(
    private readonly files: FilesRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  /** The workspace gate, with the hosted-zone answer of the files routes. */
  async authorizeWorkspace(
    context: RequestContext,
    workspaceId: string,
    action: Action,
    options: Parameters<WorkspaceGate['authorize']>[3] = {},
  ): Promise<Gate> {
    try {
      return await this.gate.authorize(context, workspaceId, action, options);
    } catch (err) {
      if (AppError.isAppError(err) && err.code === ErrorCode.HOSTED_ZONE_REQUIRED) throw filesUnsupported(err);
      throw err;
    }
  }

  /**
   * A file the caller may act on. Writes by a contributor are limited to their own files (the
   * policy's "own"); a reservation still uploading is not a file yet.
   */
  async authorizedFile(
    context: RequestContext,
    fileId: string,
    action: Action,
  ): Promise<{ file: FileWithAttachments; gate: Gate }> {
    const file = isUuid(fileId) ? await this.files.findById(fileId) : null;
    if (!file || file.status === 'uploading') throw fileNotFound();
    const gate = await this.authorizeWorkspace(context, file.workspaceId, action, {
      hiddenAs: fileNotFound,
      resourceOwnerId: action === 'files:read' ? undefined : file.createdBy,
    });
    return { file, gate };
  }
}
