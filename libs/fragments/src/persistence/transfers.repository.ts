import { Inject, Injectable } from '@nestjs/common';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';

export type TransferRow = Awaited<ReturnType<DataDb['workspaceTransfer']['findUniqueOrThrow']>>;

/** Why a job whose process died is failed (the wording a graceful stop's import ends with too). */
export const ABANDONED_JOB = 'interrupted: the process running it stopped';
export const ABANDONED_UPLOAD = 'interrupted: the upload did not complete';

/** What the owners are told of a job that ended. */
export type EndedTransfer = Pick<TransferRow, 'id' | 'workspaceId' | 'kind' | 'status' | 'error'>;

/** Export and import jobs (data.workspace_transfers) and what imports made (data.imported_records). */
@Injectable()
export class TransfersRepository {
  constructor(@Inject(FRAGMENTS_DB) private readonly db: DataDb) {}

  /**
   * An export starts processing; an import starts uploading (its archive is not there yet). A
   * workspace has at most one import uploading or processing (a partial unique index): a second
   * one is refused with a unique violation (isUniqueViolation), atomically. `leaseUntil`: the
   * job is this process's until then (see `failAbandoned`).
   */
  create(
    fields: {
      id?: string;
      workspaceId: string;
      kind: 'export' | 'import';
      createdBy: string;
      archiveKey?: string;
    },
    leaseUntil: Date,
  ) {
    return this.db.workspaceTransfer.create({
      data: { ...fields, status: fields.kind === 'import' ? 'uploading' : 'processing', leaseUntil },
    });
  }

  /**
   * The uploaded archive is complete: the import job starts, this process's until `leaseUntil`
   * (once: only an uploading job moves).
   */
  async uploaded(id: string, archiveBytes: number, leaseUntil: Date): Promise<TransferRow | null> {
    const { count } = await this.db.workspaceTransfer.updateMany({
      where: { id, status: 'uploading' },
      data: { status: 'processing', archiveBytes: BigInt(archiveBytes), leaseUntil },
    });
    return count === 1 ? this.db.workspaceTransfer.findUnique({ where: { id } }) : null;
  }

  /**
   * The running job is still this process's until `leaseUntil`. False when it is not processing
   * any more (another process failed it as abandoned, or its workspace was purged): its runner stops.
   */
  async renew(id: string, leaseUntil: Date): Promise<boolean> {
    const { count } = await this.db.workspaceTransfer.updateMany({
      where: { id, status: 'processing' },
      data: { leaseUntil },
    });
    return count === 1;
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

  /**
   * Records how the job ended, only while it is still uploading or processing: null when it had
   * ended already (failed as abandoned by another process while this one was cut off), which
   * then stays as it was.
   */
  async finish(
    id: string,
    outcome:
      | { status: 'done'; result: object; archiveKey?: string; archiveBytes?: number }
      | { status: 'failed'; error: string; done?: number; total?: number; result?: object },
  ): Promise<TransferRow | null> {
    const { count } = await this.db.workspaceTransfer.updateMany({
      where: { id, status: { in: ['uploading', 'processing'] } },
      data:
        outcome.status === 'done'
          ? {
              status: 'done',
              result: outcome.result,
              finishedAt: new Date(),
              leaseUntil: null,
              ...(outcome.archiveKey && { archiveKey: outcome.archiveKey }),
              ...(outcome.archiveBytes !== undefined && { archiveBytes: BigInt(outcome.archiveBytes) }),
            }
          : {
              status: 'failed',
              error: outcome.error,
              finishedAt: new Date(),
              leaseUntil: null,
              // What the job wrote before it failed, with the failure.
              ...(outcome.done !== undefined && { done: outcome.done }),
              ...(outcome.total !== undefined && { total: outcome.total }),
              ...(outcome.result !== undefined && { result: outcome.result }),
            },
    });
    return count === 1 ? this.db.workspaceTransfer.findUnique({ where: { id } }) : null;
  }

  /**
   * Jobs whose lease ran out before `now`: the process running them died (a crash, a kill, a lost
   * machine) or was cut off from the database for longer than the lease, so nothing runs them any
   * more. They are failed as interrupted (an upload: it did not complete), whoever left them, so
   * they do not hold their workspace's imports and purges for ever. A job of a live process is
   * renewed long before, so is never taken (FOR UPDATE SKIP LOCKED: one process fails each).
   */
  async failAbandoned(now: Date, limit = 100): Promise<EndedTransfer[]> {
    return this.db.$queryRaw<EndedTransfer[]>`
      UPDATE data.workspace_transfers t
         SET status = 'failed', finished_at = ${now}, lease_until = NULL,
             error = CASE t.status WHEN 'uploading' THEN ${ABANDONED_UPLOAD} ELSE ${ABANDONED_JOB} END
       WHERE t.id IN (
         SELECT c.id FROM data.workspace_transfers c
          WHERE c.status IN ('uploading', 'processing') AND (c.lease_until IS NULL OR c.lease_until < ${now})
          ORDER BY c.created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
         AND t.status IN ('uploading', 'processing') AND (t.lease_until IS NULL OR t.lease_until < ${now})
      RETURNING t.id, t.workspace_id AS "workspaceId", t.kind, t.status, t.error`;
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
