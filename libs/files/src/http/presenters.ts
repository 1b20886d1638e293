import type { FileRecord } from '@kw/contracts';
import type { FileDto } from './dto/file.dto.js';

/** A contract FileRecord as the REST JSON: no storage key and no download URL (spec: Files). */
export function fileJson(file: FileRecord): FileDto {
  return {
    id: file.id,
    workspaceId: file.workspaceId,
    name: file.name,
    description: file.description,
    mimeType: file.mimeType,
    declaredMimeType: file.declaredMimeType,
    kind: file.kind,
    sizeBytes: Number(file.sizeBytes),
    sha256: file.sha256,
    status: file.status,
    ...(file.failureReason ? { failureReason: file.failureReason, failureMessage: file.failureMessage } : {}),
    progress: { pagesDone: file.pagesDone, pagesTotal: file.pagesTotal },
    chunkCount: file.chunkCount,
    textTruncated: file.textTruncated,
    fragmentIds: file.fragmentIds,
    createdBy: file.createdBy,
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
    ...(file.processedAt ? { processedAt: file.processedAt } : {}),
  };
}
