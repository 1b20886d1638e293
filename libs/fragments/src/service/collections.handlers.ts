import { Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, isForeignKeyViolation } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { isUuid } from '@kw/platform-ids';
import { FRAGMENT_LIST_LIMIT_DEFAULT } from '../fragments-limits.js';
import { CollectionsRepository } from '../persistence/collections.repository.js';
import { FragmentsRepository } from '../persistence/fragments.repository.js';
import type { CollectionRow } from '../persistence/rows.js';
import { collectionNotFound } from './fragment-errors.js';
import { collectionView, fragmentView } from './fragment-view.js';
import { WorkspaceGate } from './workspace-gate.js';

/** Collections of a workspace and their fragments (collections:read / collections:write). */
@Injectable()
export class CollectionsHandlers {
  constructor(
    private readonly collections: CollectionsRepository,
    private readonly fragments: FragmentsRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FragmentsService.method.listCollections)
  async list(input: RequestOf<typeof FragmentsService, 'listCollections'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const rows = await this.collections.listWithCounts(workspaceId);
    return { collections: rows.map((r) => collectionView(r, r.fragmentCount)) };
  }

  @Handles(FragmentsService.method.createCollection)
  async create(input: RequestOf<typeof FragmentsService, 'createCollection'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'collections:write');
    const row = await this.collections.create({
      // An import keeps the archived id (it checked that no collection has it).
      id: input.id && isUuid(input.id) ? input.id : undefined,
      workspaceId,
      name: input.name,
      description: input.description,
      createdBy: userId,
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
    const updated = await this.collections.update(row.id, { name: input.name, description: input.description });
    return { collection: collectionView(updated, await this.countOf(row.id)) };
  }

  @Handles(FragmentsService.method.deleteCollection)
  async delete(input: RequestOf<typeof FragmentsService, 'deleteCollection'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    // Membership rows cascade; the fragments themselves stay.
    await this.collections.delete(row.id);
    return {};
  }

  @Handles(FragmentsService.method.addCollectionFragments)
  async add(input: RequestOf<typeof FragmentsService, 'addCollectionFragments'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    const ids = await this.fragmentsOf(row.workspaceId, input.fragmentIds);
    try {
      return { added: await this.collections.addFragments(row.id, ids) };
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      // The collection or a fragment was deleted after the checks: the checks again say which.
      await this.find(row.workspaceId, row.id);
      await this.fragmentsOf(row.workspaceId, ids);
      throw error;
    }
  }

  @Handles(FragmentsService.method.removeCollectionFragments)
  async remove(input: RequestOf<typeof FragmentsService, 'removeCollectionFragments'>, context: RequestContext) {
    const row = await this.authorizeWrite(context, input.workspaceId, input.collectionId);
    const ids = await this.fragmentsOf(row.workspaceId, input.fragmentIds);
    return { removed: await this.collections.removeFragments(row.id, ids) };
  }

  @Handles(FragmentsService.method.listCollectionFragments)
  async listFragments(input: RequestOf<typeof FragmentsService, 'listCollectionFragments'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const row = await this.find(workspaceId, input.collectionId);
    const [totalCount, items] = await Promise.all([
      this.collections.countListedFragments(row.id),
      this.collections.listFragments(row.id, input.limit || FRAGMENT_LIST_LIMIT_DEFAULT, input.offset),
    ]);
    return { items: items.map(fragmentView), totalCount };
  }

  @Handles(FragmentsService.method.lookupFragmentCollections)
  async lookup(input: RequestOf<typeof FragmentsService, 'lookupFragmentCollections'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'collections:read');
    const ids = await this.fragmentsOf(workspaceId, input.fragmentIds);
    const links = await this.collections.linksOf(ids);
    return {
      items: ids.map((fragmentId) => ({
        fragmentId,
        collections: links.filter((l) => l.fragmentId === fragmentId).map((l) => l.collection),
      })),
    };
  }

  /**
   * Contributors change only the collections they created (resourceOwnerId). The first check,
   * before the collection is looked up, is the write on own content: a caller who may write no
   * collection at all gets its 403 before a Leaf-backed workspace's 409, as on every other route.
   */
  private async authorizeWrite(
    context: RequestContext,
    workspaceId: string,
    collectionId: string,
  ): Promise<CollectionRow> {
    await this.gate.authorize(context, workspaceId, 'collections:write');
    const row = await this.find(workspaceId, collectionId);
    await this.gate.authorize(context, workspaceId, 'collections:write', { resourceOwnerId: row.createdBy });
    return row;
  }

  private async find(workspaceId: string, id: string): Promise<CollectionRow> {
    const row = isUuid(id) ? await this.collections.findInWorkspace(workspaceId, id) : null;
    if (!row) throw collectionNotFound();
    return row;
  }

  /** What its fragment listing shows: archived fragments stay members but are not counted. */
  private countOf(collectionId: string): Promise<number> {
    return this.collections.countListedFragments(collectionId);
  }

  /** The ids (deduplicated, in order) when all are fragments of the workspace; else 404 naming the others. */
  private async fragmentsOf(workspaceId: string, fragmentIds: readonly string[]): Promise<string[]> {
    const ids = [...new Set(fragmentIds)];
    const known = new Set(await this.fragments.existingIds(workspaceId, ids.filter(isUuid)));
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
