import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { BlobStorage } from '@kw/platform-storage';
import { BLOB_STORAGE } from '@kw/platform-storage';
import { writeArchive, type ArchivedFragment, type ArchiveRecords } from '../../domain/workspace-archive.js';
import { TransfersRepository, type TransferRow } from '../../persistence/transfers.repository.js';
import { WorkspaceExportRepository } from '../../persistence/workspace-export.repository.js';
import type { FragmentRow } from '../../persistence/rows.js';
import { exportArchiveKey } from './transfer-view.js';

/**
 * Writes a workspace's archive (docs/portable-workspaces.md): reads every record the fragments
 * component keeps for it, reporting progress per batch of fragments, then stores the zip in
 * blob storage for owners to download.
 */
@Injectable()
export class WorkspaceExport {
  constructor(
    private readonly reads: WorkspaceExportRepository,
    private readonly transfers: TransfersRepository,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  async run(job: TransferRow): Promise<TransferRow> {
    const workspaceId = job.workspaceId;
    const total = await this.reads.countFragments(workspaceId);
    await this.transfers.progress(job.id, 0, total);
    const fragments: ArchivedFragment[] = [];
    for await (const batch of this.reads.fragments(workspaceId)) {
      fragments.push(...batch.map(archived));
      await this.transfers.progress(job.id, Math.min(fragments.length, total), Math.max(total, fragments.length));
    }
    const records: ArchiveRecords = {
      'fragment-types.ndjson': (await this.reads.types(workspaceId)).map((t) => ({
        id: t.id,
        key: t.key,
        name: t.name,
        description: t.description,
      })),
      'fragments.ndjson': fragments,
      'collections.ndjson': (await this.reads.collections(workspaceId)).map((c) => ({
        id: c.id,
        name: c.name,
        description: c.description,
      })),
      'collection-fragments.ndjson': await this.reads.memberships(workspaceId),
      'graph-entities.ndjson': await this.reads.entities(workspaceId),
      'graph-relations.ndjson': await this.reads.relations(workspaceId),
    };
    const bytes = writeArchive({ workspaceId }, records);
    const key = exportArchiveKey(workspaceId, job.id);
    await this.storage.put(key, Readable.from([bytes]), { contentType: 'application/zip' });
    const result = Object.fromEntries(
      Object.entries(records).map(([entry, list]) => [entry.replace('.ndjson', ''), (list as unknown[]).length]),
    );
    return this.transfers.finish(job.id, { status: 'done', result, archiveKey: key, archiveBytes: bytes.length });
  }
}

function archived(f: FragmentRow): ArchivedFragment {
  return {
    id: f.id,
    fragmentTypeId: f.fragmentTypeId,
    title: f.title,
    content: f.content,
    summary: f.summary,
    summarySource: f.summarySource,
    tags: f.tags,
    enhanceTags: f.enhanceTags,
    key: f.key,
    createdVia: f.createdVia,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
    archivedAt: f.archivedAt?.toISOString() ?? null,
  };
}
