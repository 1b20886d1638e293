import { create } from '@bufbuild/protobuf';
import { FileRecordSchema, type FileRecord } from '@kw/contracts';
import type { FileWithAttachments } from '../persistence/rows.js';
import { failureMessageFor } from './failure-messages.js';

const iso = (d: Date | null): string => (d ? d.toISOString() : '');

/** A file row as the contract's FileRecord (storage_key included: only the HTTP edge reads it). */
export function fileView(row: FileWithAttachments): FileRecord {
  return create(FileRecordSchema, {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    description: row.description,
    mimeType: row.mimeType,
    declaredMimeType: row.declaredMimeType,
    kind: row.kind,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    status: row.status,
    failureReason: row.failureReason ?? '',
    // By the reason: failure_message is no longer written (rows.ts), and old rows hold the extractor's words.
    failureMessage: row.failureReason ? failureMessageFor(row.failureReason) : '',
    pagesDone: row.pagesDone,
    pagesTotal: row.pagesTotal,
    chunkCount: row.chunkCount,
    textTruncated: row.textTruncated,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    processedAt: iso(row.processedAt),
    fragmentIds: row.attachments.map((a) => a.fragmentId),
    storageKey: row.storageKey,
  });
}
