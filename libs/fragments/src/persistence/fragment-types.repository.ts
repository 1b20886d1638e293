import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { FragmentTypeRow } from './rows.js';

/** Fragment types of workspaces (data.fragment_types). */
@Injectable()
export class FragmentTypesRepository {
  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  /**
   * Creates `defaults` when the workspace has no type at all. Idempotent under concurrency
   * through the unique (workspace_id, key).
   */
  async createDefaultsIfNone(
    workspaceId: string,
    defaults: ReadonlyArray<{ key: string; name: string; description: string }>,
  ): Promise<void> {
    if ((await this.db.fragmentType.count({ where: { workspaceId } })) > 0) return;
    await this.db.fragmentType.createMany({
      data: defaults.map((t) => ({ ...t, workspaceId, isDefault: true })),
      skipDuplicates: true,
    });
  }

  listInWorkspace(workspaceId: string): Promise<FragmentTypeRow[]> {
    return this.db.fragmentType.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'asc' }, { key: 'asc' }],
    });
  }

  /** Fails with the unique violation when the key exists in the workspace. */
  create(workspaceId: string, fields: { key: string; name: string; description: string }): Promise<FragmentTypeRow> {
    return this.db.fragmentType.create({
      data: { workspaceId, key: fields.key, name: fields.name, description: fields.description },
    });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<FragmentTypeRow | null> {
    return this.db.fragmentType.findFirst({ where: { id, workspaceId } });
  }

  /**
   * Whether the type is one of the workspace's: a plain `pg` statement, as it runs on every
   * fragment create (see FragmentsRepository.insertWithEvent).
   */
  async existsInWorkspace(workspaceId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.database.pool.query(
      'SELECT 1 FROM data.fragment_types WHERE id = $1 AND workspace_id = $2',
      [id, workspaceId],
    );
    return !!rowCount;
  }

  update(id: string, fields: { name?: string; description?: string }): Promise<FragmentTypeRow> {
    return this.db.fragmentType.update({ where: { id }, data: { name: fields.name, description: fields.description } });
  }

  /**
   * Deletes the type unless fragments use it (archived ones count too: they still reference it,
   * restrict FK), in one transaction. Returns how many fragments use it: 0 when deleted.
   */
  async deleteUnlessUsed(id: string): Promise<number | 'gone'> {
    return this.db.$transaction(async (tx) => {
      // The lock waits for creates that have just referenced the type (their foreign key check
      // holds a share lock on it) and keeps new ones out until the delete commits: the count
      // then sees every fragment of it, and a create that comes later fails its check.
      const locked = await tx.$queryRaw<unknown[]>`SELECT 1 FROM data.fragment_types WHERE id = ${id}::uuid FOR UPDATE`;
      if (locked.length === 0) return 'gone';
      const fragmentCount = await tx.fragment.count({ where: { fragmentTypeId: id } });
      if (fragmentCount > 0) return fragmentCount;
      await tx.fragmentType.delete({ where: { id } });
      return 0;
    });
  }
}
