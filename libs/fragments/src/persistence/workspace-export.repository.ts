import { Inject, Injectable } from '@nestjs/common';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { FragmentRow } from './rows.js';

/** Rows of fragments read per query while exporting: bounds what one query loads. */
const EXPORT_BATCH = 200;

/** The reads of a workspace export: everything the fragments component keeps about one workspace. */
@Injectable()
export class WorkspaceExportRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  countFragments(workspaceId: string): Promise<number> {
    return this.db.fragment.count({ where: { workspaceId } });
  }

  /** Every fragment of the workspace, archived ones too, in id order, a batch at a time. */
  async *fragments(workspaceId: string): AsyncGenerator<FragmentRow[]> {
    let after: string | undefined;
    for (;;) {
      const batch = await this.db.fragment.findMany({
        where: { workspaceId, ...(after && { id: { gt: after } }) },
        orderBy: { id: 'asc' },
        take: EXPORT_BATCH,
        omit: { searchLength: true, tagsFolded: true },
      });
      if (batch.length === 0) return;
      yield batch;
      after = batch[batch.length - 1]!.id;
    }
  }

  types(workspaceId: string) {
    return this.db.fragmentType.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' } });
  }

  collections(workspaceId: string) {
    return this.db.collection.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  memberships(workspaceId: string) {
    return this.db.collectionFragment.findMany({
      where: { collection: { workspaceId } },
      select: { collectionId: true, fragmentId: true },
      orderBy: [{ collectionId: 'asc' }, { addedAt: 'asc' }],
    });
  }

  entities(workspaceId: string) {
    return this.db.graphEntity.findMany({ where: { workspaceId }, select: { id: true, kind: true, name: true } });
  }

  relations(workspaceId: string) {
    return this.db.graphRelation.findMany({
      where: { workspaceId },
      select: { sourceId: true, targetId: true, kind: true, fragmentId: true },
    });
  }
}
