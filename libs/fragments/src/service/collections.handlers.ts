import { Inject, Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FRAGMENT_LIST_LIMIT_DEFAULT } from '../fragment-limits.js';
import { collectionNotFound } from './fragment-errors.js';
import { collectionView, fragmentView } from './fragment-view.js';
import { FRAGMENTS_DB, type CollectionRow, type DataDb } from './fragments-db.js';
import { isUuid } from '@kw/platform-ids';
import { WorkspaceGate } from './workspace-gate.js';

/** Collections of a workspace and their fragments (collections:read / collections:write). */
@Injectable()
export class CollectionHandlers {
  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FragmentsService.method.listCollections)
  async list(input: RequestOf<typeof FragmentsService, 'listCollections'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const rows = await this.db.collection.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { _count: { select: { fragments: true } } },
    });
    return { collections: rows.map((r) => collectionView(r, r._count.fragments)) };
  }

  @Handles(FragmentsService.method.createCollection)
  async create(input: RequestOf<typeof FragmentsService, 'createCollection'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'collections:write');
    const row = await this.db.collection.create({
      data: { workspaceId, name: input.name, description: input.description, createdBy: userId },
    });
    return { collection: collectionView(row, 0) };
  }

  @Handles(FragmentsService.method.getCollection)
  async get(input: RequestOf<typeof FragmentsService, 'getCollection'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const row = await this.find(workspaceId, input.collectionId);
    return { collection: collectionView(row, await this.countOf(row.id)) };
  }

  @Handles(FragmentsService.method.updateCollection)
  async update(input: RequestOf<typeof FragmentsService, 'updateCollection'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    const updated = await this.db.collection.update({
      where: { id: row.id },
      data: { name: input.name, description: input.description },
    });
    return { collection: collectionView(updated, await this.countOf(row.id)) };
  }

  @Handles(FragmentsService.method.deleteCollection)
  async delete(input: RequestOf<typeof FragmentsService, 'deleteCollection'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    // Membership rows cascade; the fragments themselves stay.
    await this.db.collection.delete({ where: { id: row.id } });
    return {};
  }

  @Handles(FragmentsService.method.addCollectionFragments)
  async add(input: RequestOf<typeof FragmentsService, 'addCollectionFragments'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    const ids = await this.fragmentsOf(row.workspaceId, input.fragmentIds);
    const { count } = await this.db.collectionFragment.createMany({
      data: ids.map((fragmentId) => ({ collectionId: row.id, fragmentId })),
      skipDuplicates: true,
    });
    return { added: count };
  }

  @Handles(FragmentsService.method.removeCollectionFragments)
  async remove(input: RequestOf<typeof FragmentsService, 'removeCollectionFragments'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    const ids = await this.fragmentsOf(row.workspaceId, input.fragmentIds);
    const { count } = await this.db.collectionFragment.deleteMany({
      where: { collectionId: row.id, fragmentId: { in: ids } },
    });
    return { removed: count };
  }

  @Handles(FragmentsService.method.listCollectionFragments)
  async listFragments(input: RequestOf<typeof FragmentsService, 'listCollectionFragments'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const row = await this.find(workspaceId, input.collectionId);
    const where = { collections: { some: { collectionId: row.id } }, archivedAt: null };
    const [totalCount, items] = await Promise.all([
      this.db.fragment.count({ where }),
      this.db.fragment.findMany({
        where,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: input.limit || FRAGMENT_LIST_LIMIT_DEFAULT,
        skip: input.offset,
      }),
    ]);
    return { items: items.map(fragmentView), totalCount };
  }

  @Handles(FragmentsService.method.lookupFragmentCollections)
  async lookup(input: RequestOf<typeof FragmentsService, 'lookupFragmentCollections'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const ids = await this.fragmentsOf(workspaceId, input.fragmentIds);
    const links = await this.db.collectionFragment.findMany({
      where: { fragmentId: { in: ids } },
      include: { collection: { select: { id: true, name: true } } },
      orderBy: [{ addedAt: 'asc' }, { collectionId: 'asc' }],
    });
    return {
      items: ids.map((fragmentId) => ({
        fragmentId,
        collections: links.filter((l) => l.fragmentId === fragmentId).map((l) => l.collection),
      })),
    };
  }

  /** Contributors change only the collections they created (resourceOwnerId). */
  private async authorizeWrite(
    context: RequestContext,
    workspaceId: string,
    collectionId: string,
  ): Promise<CollectionRow> {
    await this.gate.authorize(context, workspaceId, 'collections:read');
    const row = await this.find(workspaceId, collectionId);
    await this.gate.authorize(context, workspaceId, 'collections:write', { resourceOwnerId: row.createdBy });
    return row;
  }

  private async find(workspaceId: string, id: string): Promise<CollectionRow> {
    const row = isUuid(id) ? await this.db.collection.findFirst({ where: { id, workspaceId } }) : null;
    if (!row) throw collectionNotFound();
    return row;
  }

  private countOf(collectionId: string): Promise<number> {
    return this.db.collectionFragment.count({ where: { collectionId } });
  }

  /** The ids (deduplicated, in order) when all are fragments of the workspace; else 404 naming the others. */
  private async fragmentsOf(workspaceId: string, fragmentIds: readonly string[]): Promise<string[]> {
    const ids = [...new Set(fragmentIds)];
    const found = await this.db.fragment.findMany({
      where: { workspaceId, id: { in: ids.filter(isUuid) } },
      select: { id: true },
    });
    const known = new Set(found.map((f) => f.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0)
      throw new AppError({
        status: 404,
        code: ErrorCode.NOT_FOUND,
        message: 'Fragment not found',
        details: { fragmentIds: missing },
      });
    return ids;
  }
}
