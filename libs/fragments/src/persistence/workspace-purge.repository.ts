import { Inject, Injectable } from '@nestjs/common';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';

/**
 * Deletes everything the fragments component holds of one workspace, in one transaction: a
 * moved workspace's copy that is no longer its own. Terms, chunks, memberships and graph
 * mentions go with their fragments and entities (foreign keys cascade); the component's outbox
 * events of the workspace go too.
 */
@Injectable()
export class WorkspacePurgeRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  /** The blob keys of the workspace's export and import archives (delete them after the rows). */
  async archiveKeys(workspaceId: string): Promise<string[]> {
    const rows = await this.db.workspaceTransfer.findMany({
      where: { workspaceId, archiveKey: { not: null } },
      select: { archiveKey: true },
    });
    return rows.map((r) => r.archiveKey!);
  }

  /**
   * The number of fragments deleted, or `importRunning` (nothing deleted) while an import job of
   * the workspace is still processing: its next batch could commit after the purge and leave
   * rows behind, or make the purge fail on a foreign key. The job's rows are locked first, so a
   * job starting meanwhile (uploading → processing) waits for the purge, then finds its row gone.
   */
  async purge(workspaceId: string): Promise<number | 'importRunning'> {
    const where = { workspaceId };
    return this.db.$transaction(
      async (tx) => {
        const imports = await tx.$queryRaw<Array<{ status: string }>>`
          SELECT status FROM data.workspace_transfers
          WHERE workspace_id = ${workspaceId}::uuid AND kind = 'import' AND status IN ('uploading', 'processing')
          FOR UPDATE`;
        if (imports.some((i) => i.status === 'processing')) return 'importRunning' as const;
        await tx.graphEntity.deleteMany({ where });
        await tx.collection.deleteMany({ where });
        const { count } = await tx.fragment.deleteMany({ where });
        await tx.fragmentType.deleteMany({ where });
        await tx.workspaceTransfer.deleteMany({ where });
        await tx.importedRecord.deleteMany({ where });
        // Fragment events carry titles, keys and tags (never content): they go too, published or not.
        await tx.outboxEvent.deleteMany({
          where: { aggregateType: 'fragment', payload: { path: ['workspaceId'], equals: workspaceId } },
        });
        return count;
      },
      { maxWait: 60_000, timeout: 300_000 },
    );
  }
}
