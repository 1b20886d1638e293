import { Inject, Injectable } from '@nestjs/common';
import {
  realArrayLiteral,
  sqlStatements,
  sqlTransaction,
  type Database,
  type SqlExecutor,
} from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { FILES_DB, type FilesDb } from './files-database.js';
import type { FileRow } from './rows.js';

const FOREIGN_KEY_VIOLATION = '23503';

/** Rolls back a finish whose file is no longer processing. */
class NotProcessing extends Error {}

export interface ChunkToStore {
  text: string;
  embedding: number[];
}

/** The processing worker's statements: leases, progress, results, and the sweeper's lookups. */
@Injectable()
export class ProcessingRepository {
  private readonly sql: SqlExecutor;

  constructor(
    @Inject(FILES_DB) private readonly db: FilesDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {
    this.sql = sqlStatements(() => database.pool);
  }

  /**
   * Takes the next processing file nobody holds for `leaseMs`, fairly between workspaces: first
   * the workspace with the fewest files held right now (by any process), then the one this
   * process served longest ago (`servedOldestFirst`: workspace ids, the least recently served
   * first; a workspace not in it first of all), then the oldest upload. So a workspace's backlog
   * takes turns with every other workspace waiting instead of coming before them. Null when
   * nothing waits (or every waiting file is being taken by another process: SKIP LOCKED).
   */
  async claimNext(leaseMs: number, servedOldestFirst: string[]): Promise<{ id: string; workspaceId: string } | null> {
    const now = new Date();
    const until = new Date(now.getTime() + leaseMs);
    const rows = await this.sql.$queryRaw<Array<{ id: string; workspace_id: string }>>`
      WITH held AS (
        SELECT workspace_id, count(*) AS n FROM data.files
         WHERE status = 'processing' AND lease_until >= ${now}
         GROUP BY workspace_id)
      UPDATE data.files f SET lease_until = ${until}, attempts = f.attempts + 1, updated_at = ${now}
       WHERE f.id = (
         SELECT c.id FROM data.files c LEFT JOIN held h ON h.workspace_id = c.workspace_id
          WHERE c.status = 'processing' AND (c.lease_until IS NULL OR c.lease_until < ${now})
          ORDER BY coalesce(h.n, 0), array_position(${servedOldestFirst}::uuid[], c.workspace_id) NULLS FIRST,
                   c.created_at, c.id
          LIMIT 1
          FOR UPDATE OF c SKIP LOCKED)
         AND f.status = 'processing' AND (f.lease_until IS NULL OR f.lease_until < ${now})
      RETURNING f.id, f.workspace_id`;
    return rows[0] ? { id: rows[0].id, workspaceId: rows[0].workspace_id } : null;
  }

  findById(id: string): Promise<FileRow | null> {
    return this.db.file.findUnique({ where: { id } });
  }

  async renew(id: string, leaseMs: number): Promise<void> {
    await this.db.file.updateMany({
      where: { id, status: 'processing' },
      data: { leaseUntil: new Date(Date.now() + leaseMs) },
    });
  }

  async progress(id: string, pagesDone: number, pagesTotal: number): Promise<void> {
    await this.db.file.updateMany({ where: { id, status: 'processing' }, data: { pagesDone, pagesTotal } });
  }

  async stillProcessing(id: string): Promise<boolean> {
    return (await this.db.file.count({ where: { id, status: 'processing' } })) > 0;
  }

  /**
   * Replaces the file's chunks and marks it ready, in one transaction and only while it is still
   * processing (a cancel or a delete in between wins): re-processing gives the same rows. The
   * file's row is marked last: storing the chunks holds only a key-share lock on it (their
   * foreign key), which a cancel's update does not wait for, so a cancel while the chunks go in
   * answers at once and this transaction, finding the file no longer processing, rolls back.
   */
  async finish(id: string, workspaceId: string, chunks: ChunkToStore[], textTruncated: boolean): Promise<boolean> {
    // Plain `pg` (decision 0008): Prisma's createMany walked every number of every embedding
    // (a hundred 256-number chunks cost it tens of milliseconds of CPU); here they go as one
    // array literal per chunk.
    const texts = chunks.map((c) => c.text);
    const vectors = chunks.map((c) => realArrayLiteral(c.embedding));
    // This process's clock, as for every other time the files component writes (created_at too).
    const now = new Date();
    try {
      return await sqlTransaction(this.database.pool, async (tx) => {
        await tx.$executeRaw`DELETE FROM data.file_chunks WHERE file_id = ${id}::uuid`;
        if (chunks.length > 0) {
          await tx.$executeRaw`
            INSERT INTO data.file_chunks (file_id, workspace_id, ordinal, text, embedding)
            SELECT f.id, ${workspaceId}::uuid, c.ordinal - 1, c.text, c.embedding::float4[]
              FROM unnest(${texts}::text[], ${vectors}::text[]) WITH ORDINALITY AS c(text, embedding, ordinal)
              JOIN data.files f ON f.id = ${id}::uuid AND f.status = 'processing'`;
        }
        const marked = await tx.$executeRaw`
          UPDATE data.files SET status = 'ready', chunk_count = ${chunks.length}, text_truncated = ${textTruncated},
                 lease_until = NULL, processed_at = ${now}, failure_reason = NULL, updated_at = ${now}
           WHERE id = ${id}::uuid AND status = 'processing'`;
        if (marked === 0) throw new NotProcessing();
        return true;
      });
    } catch (err) {
      // Cancelled, or deleted (the chunks' foreign key then fails): the chunks are rolled back.
      if (err instanceof NotProcessing || (err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
      throw err;
    }
  }

  async fail(id: string, reason: string): Promise<void> {
    await this.db.file.updateMany({
      where: { id, status: 'processing' },
      data: {
        status: 'failed',
        failureReason: reason,
        leaseUntil: null,
        processedAt: new Date(),
      },
    });
  }

  /** Gives a claimed file back (the worker is stopping): the next worker takes it at once. */
  async release(id: string): Promise<void> {
    await this.db.file.updateMany({ where: { id, status: 'processing' }, data: { leaseUntil: null } });
  }

  /** Reservations older than `before` that never completed (the client or the process went away). */
  async staleReservations(before: Date, limit: number): Promise<Array<{ id: string; storageKey: string }>> {
    return this.db.file.findMany({
      where: { status: 'uploading', createdAt: { lt: before } },
      select: { id: true, storageKey: true },
      take: limit,
    });
  }

  async dropStaleReservation(id: string): Promise<void> {
    await this.db.file.deleteMany({ where: { id, status: 'uploading' } });
  }

  /** Which of these blob keys belong to a file row (any status). */
  async knownKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.file.findMany({ where: { storageKey: { in: keys } }, select: { storageKey: true } });
    return new Set(rows.map((r) => r.storageKey));
  }
}
