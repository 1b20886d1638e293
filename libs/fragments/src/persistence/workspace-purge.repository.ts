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

  async purge(workspaceId: string): Promise<number> {
    const where = { workspaceId };
    return this.db.$transaction(
      async (tx) => {
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
