import type { MessageInitShape } from '@bufbuild/protobuf';
import type { TransferSchema } from '@kw/contracts';
import type { TransferRow } from '../../persistence/transfers.repository.js';

/** `archiveTtlMs`: EXPORT_ARCHIVE_TTL_MS, which says when a done export's archive goes. */
export function transferView(row: TransferRow, archiveTtlMs: number): MessageInitShape<typeof TransferSchema> {
  const expires = row.kind === 'export' && row.status === 'done' && row.finishedAt;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    kind: row.kind,
    status: row.status,
    done: row.done,
    total: row.total,
    error: row.error ?? '',
    resultJson: JSON.stringify(row.result ?? {}),
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? '',
    archiveBytes: row.archiveBytes === null ? 0 : Number(row.archiveBytes),
    expiresAt: expires ? new Date(row.finishedAt!.getTime() + archiveTtlMs).toISOString() : '',
  };
}

/** Where an export's archive is kept in blob storage (outside the files component's `files/`). */
export const exportArchiveKey = (workspaceId: string, transferId: string) =>
  `transfers/${workspaceId}/${transferId}-export.zip`;

/** Where the edge stores an import job's uploaded archive (named by BeginImport, never by the client). */
export const importArchiveKey = (workspaceId: string, transferId: string) =>
  `transfers/${workspaceId}/${transferId}-import.zip`;
