import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import { ServiceClient } from '@kw/platform-transport';
import {
  writeArchive,
  type ArchivedFile,
  type ArchivedFragment,
  type ArchiveRecords,
} from '../../domain/workspace-archive.js';
import { TransfersRepository, type TransferRow } from '../../persistence/transfers.repository.js';
import { WorkspaceExportRepository } from '../../persistence/workspace-export.repository.js';
import type { FragmentRow } from '../../persistence/rows.js';
import { exportArchiveKey } from './transfer-view.js';

/**
 * Writes a workspace's archive (docs/portable-workspaces.md): reads every record the fragments
 * component keeps for it, reporting progress per batch of fragments, and the files through the
 * files component's read contract, then stores the zip in blob storage for owners to download.
 * Runs in the caller's request context (the job was started in it), as the owner.
 */
@Injectable()
export class WorkspaceExport {
  constructor(
    private readonly reads: WorkspaceExportRepository,
    private readonly transfers: TransfersRepository,
    private readonly client: ServiceClient,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(job: TransferRow): Promise<TransferRow | null> {
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
      'files.ndjson': [],
    };
    const fileBytes = await this.files(workspaceId, records['files.ndjson']);
    const bytes = await writeArchive({ workspaceId }, records, new Date(), fileBytes);
    const key = exportArchiveKey(workspaceId, job.id);
    await this.storage.put(key, Readable.from([bytes]), { contentType: 'application/zip' });
    const result = Object.fromEntries(
      Object.entries(records).map(([entry, list]) => [entry.replace('.ndjson', ''), (list as unknown[]).length]),
    );
    const done = await this.transfers.finish(job.id, {
      status: 'done',
      result,
      archiveKey: key,
      archiveBytes: bytes.length,
    });
    // Failed meanwhile as abandoned (this process was cut off past its lease): no row names the
    // archive, so nothing would ever delete it.
    if (!done) await this.storage.delete(key);
    return done;
  }

  /**
   * The workspace's files through the files component's read contract (ListWorkspaceFiles: the
   * records and the blob keys), their bytes from blob storage. A Leaf (CLOUD_URL set) serves no
   * files (Hosted Zone V1), so its archives hold none.
   */
  private async files(workspaceId: string, into: ArchivedFile[]): Promise<Map<string, Uint8Array>> {
    const bytes = new Map<string, Uint8Array>();
    if (this.config.CLOUD_URL) return bytes;
    for (let offset = 0; ;) {
      const { files } = await this.client.call(FilesService.method.listWorkspaceFiles, { workspaceId, offset });
      for (const file of files) {
        const chunks: Buffer[] = [];
        for await (const chunk of await this.storage.get(file.storageKey)) chunks.push(chunk as Buffer);
        bytes.set(file.id, Buffer.concat(chunks));
        into.push({
          id: file.id,
          name: file.name,
          description: file.description,
          mimeType: file.mimeType,
          kind: file.kind,
          sizeBytes: Number(file.sizeBytes),
          sha256: file.sha256,
          fragmentIds: file.fragmentIds,
        });
      }
      if (files.length === 0) return bytes;
      offset += files.length;
    }
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
