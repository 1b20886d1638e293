import { Inject, Injectable } from '@nestjs/common';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { CollectionLink, CollectionRow, CountedCollectionRow, FragmentRow } from './rows.js';

/** Collections of a workspace (data.collections) and their fragments (data.collection_fragments). */
@Injectable()
export class CollectionsRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  /** The workspace's collections, oldest first, each with the number of fragments its listing shows (not archived). */
  async listWithCounts(workspaceId: string): Promise<CountedCollectionRow[]> {
    const rows = await this.db.collection.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { _count: { select: { fragments: { where: { fragment: { archivedAt: null } } } } } },
    });
    return rows.map(({ _count, ...row }) => ({ ...row, fragmentCount: _count.fragments }));
  }

  /** Whether any workspace has a collection with this id (an import keeps an archived id only when none has). */
  async exists(id: string): Promise<boolean> {
    return (await this.db.collection.count({ where: { id } })) > 0;
  }

  create(fields: {
    id?: string;
    workspaceId: string;
    name: string;
    description: string;
    createdBy: string;
  }): Promise<CollectionRow> {
    return this.db.collection.create({
      data: {
        ...(fields.id && { id: fields.id }),
        workspaceId: fields.workspaceId,
        name: fields.name,
        description: fields.description,
        createdBy: fields.createdBy,
      },
    });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<CollectionRow | null> {
    return this.db.collection.findFirst({ where: { id, workspaceId } });
  }

  update(id: string, fields: { name?: string; description?: string }): Promise<CollectionRow> {
    return this.db.collection.update({ where: { id }, data: { name: fields.name, description: fields.description } });
  }

  /** Membership rows cascade; the fragments themselves stay. */
  async delete(id: string): Promise<void> {
    await this.db.collection.delete({ where: { id } });
  }

  /** Adds fragments (those already in it are skipped); returns how many were added. */
  async addFragments(collectionId: string, fragmentIds: readonly string[]): Promise<number> {
    const { count } = await this.db.collectionFragment.createMany({
      data: fragmentIds.map((fragmentId) => ({ collectionId, fragmentId })),
      skipDuplicates: true,
    });
    return count;
  }

  /** Removes fragments; returns how many were in it. */
  async removeFragments(collectionId: string, fragmentIds: readonly string[]): Promise<number> {
    const { count } = await this.db.collectionFragment.deleteMany({
      where: { collectionId, fragmentId: { in: [...fragmentIds] } },
    });
    return count;
  }

  /** Its fragments that are not archived. */
  countListedFragments(collectionId: string): Promise<number> {
    return this.db.fragment.count({ where: listed(collectionId) });
  }

  /** A page of its fragments that are not archived, oldest first. */
  listFragments(collectionId: string, take: number, skip: number): Promise<FragmentRow[]> {
    return this.db.fragment.findMany({
      where: listed(collectionId),
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
      skip,
    });
  }

  /** The collections of these fragments, in the order they were added. */
  linksOf(fragmentIds: readonly string[]): Promise<CollectionLink[]> {
    return this.db.collectionFragment.findMany({
      where: { fragmentId: { in: [...fragmentIds] } },
      include: { collection: { select: { id: true, name: true } } },
      orderBy: [{ addedAt: 'asc' }, { collectionId: 'asc' }],
    });
  }
}

const listed = (collectionId: string) => ({ collections: { some: { collectionId } }, archivedAt: null });
