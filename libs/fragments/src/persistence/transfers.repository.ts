import { Inject, Injectable } from '@nestjs/common';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';

export type TransferRow = Awaited<ReturnType<DataDb['workspaceTransfer']['findUniqueOrThrow']>>;

/** Export and import jobs (data.workspace_transfers) and what imports made (data.imported_records). */
@Injectable()
export class TransfersRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  /**
   * An export starts processing; an import starts uploading (its archive is not there yet). A
   * workspace has at most one import uploading or processing (a partial unique index): a second
   * one is refused with a unique violation (isUniqueViolation), atomically.
   */
  create(fields: {
    id?: string;
    workspaceId: string;
    kind: 'export' | 'import';
    createdBy: string;
    archiveKey?: string;
  }) {
    return this.db.workspaceTransfer.create({
      data: { ...fields, status: fields.kind === 'import' ? 'uploading' : 'processing' },
    });
  }

  /** The uploaded archive is complete: the import job starts (once: only an uploading job moves). */
  async uploaded(id: string, archiveBytes: number): Promise<TransferRow | null> {
    const { count } = await this.db.workspaceTransfer.updateMany({
      where: { id, status: 'uploading' },
      data: { status: 'processing', archiveBytes: BigInt(archiveBytes) },
    });
    return count === 1 ? this.db.workspaceTransfer.findUnique({ where: { id } }) : null;
  }

  /** The workspace's import uploading or processing, if any (at most one: see `create`). */
  activeImport(workspaceId: string): Promise<TransferRow | null> {
    return this.db.workspaceTransfer.findFirst({
      where: { workspaceId, kind: 'import', status: { in: ['uploading', 'processing'] } },
    });
  }

  find(id: string, workspaceId: string, kind: string): Promise<TransferRow | null> {
    return this.db.workspaceTransfer.findFirst({ where: { id, workspaceId, kind } });
  }

  async progress(id: string, done: number, total: number): Promise<void> {
    await this.db.workspaceTransfer.update({ where: { id }, data: { done, total } });
  }

  async finish(
    id: string,
    outcome:
      | { status: 'done'; result: object; archiveKey?: string; archiveBytes?: number }
      | { status: 'failed'; error: string; done?: number; total?: number; result?: object },
  ): Promise<TransferRow> {
    return this.db.workspaceTransfer.update({
      where: { id },
      data:
        outcome.status === 'done'
          ? {
              status: 'done',
              result: outcome.result,
              finishedAt: new Date(),
              ...(outcome.archiveKey && { archiveKey: outcome.archiveKey }),
              ...(outcome.archiveBytes !== undefined && { archiveBytes: BigInt(outcome.archiveBytes) }),
            }
          : {
              status: 'failed',
              error: outcome.error,
              finishedAt: new Date(),
              // What the job wrote before it failed, with the failure.
              ...(outcome.done !== undefined && { done: outcome.done }),
              ...(outcome.total !== undefined && { total: outcome.total }),
              ...(outcome.result !== undefined && { result: outcome.result }),
            },
    });
  }

  /** Jobs a stopped process left running: nothing resumes them, so they are failed. */
  async failInterrupted(): Promise<number> {
    const { count } = await this.db.workspaceTransfer.updateMany({
      where: { status: { in: ['uploading', 'processing'] } },
      data: { status: 'failed', error: 'interrupted: the process running it stopped', finishedAt: new Date() },
    });
    return count;
  }

  /** The workspace's records an earlier import made, by archived id. */
  async importedIds(workspaceId: string, kind: 'type' | 'fragment' | 'collection'): Promise<Map<string, string>> {
    const rows = await this.db.importedRecord.findMany({ where: { workspaceId, kind } });
    return new Map(rows.map((r) => [r.sourceId, r.targetId]));
  }

  async recordImported(
    workspaceId: string,
    kind: 'type' | 'fragment' | 'collection',
    sourceId: string,
    targetId: string,
  ): Promise<void> {
    await this.recordImportedMany(workspaceId, kind, [{ sourceId, targetId }]);
  }

  /**
   * `recordImported` for many records of one kind, in one statement; a source id given twice
   * (an archive may repeat one) keeps its last target, as one call after another would.
   */
  async recordImportedMany(
    workspaceId: string,
    kind: 'type' | 'fragment' | 'collection',
    pairs: ReadonlyArray<{ sourceId: string; targetId: string }>,
  ): Promise<void> {
    if (pairs.length === 0) return;
    const last = new Map(pairs.map((p) => [p.sourceId, p.targetId]));
    await this.db.$executeRawUnsafe(
      `INSERT INTO data.imported_records (workspace_id, kind, source_id, target_id)
       SELECT $1::uuid, $2, source_id, target_id
         FROM unnest($3::text[], $4::uuid[]) AS pairs(source_id, target_id)
       ON CONFLICT (workspace_id, kind, source_id) DO UPDATE SET target_id = EXCLUDED.target_id`,
      workspaceId,
      kind,
      [...last.keys()],
      [...last.values()],
    );
  }

  /** Done exports whose archive is older than `before`, oldest first. */
  expiringExports(before: Date, limit: number) {
    return this.db.workspaceTransfer.findMany({
      where: { kind: 'export', status: 'done', finishedAt: { lt: before }, archiveKey: { not: null } },
      select: { id: true, archiveKey: true },
      orderBy: { finishedAt: 'asc' },
      take: limit,
    });
  }

  /** The export's archive was deleted: it cannot be downloaded any more. */
  async markExpired(id: string): Promise<void> {
    await this.db.workspaceTransfer.updateMany({
      where: { id, status: 'done' },
      data: { status: 'expired', archiveKey: null },
    });
  }
}
