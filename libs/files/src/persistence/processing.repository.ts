import { Inject, Injectable } from '@nestjs/common';
import { realArrayLiteral, sqlTransaction, type Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { FILES_DB, type FilesDb } from './files-database.js';
import type { FileRow } from './rows.js';

export interface ChunkToStore {
  text: string;
  embedding: number[];
}

/** The processing worker's statements: leases, progress, results, and the sweeper's lookups. */
@Injectable()
export class ProcessingRepository {
  constructor(
    @Inject(FILES_DB) private readonly db: FilesDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /**
   * Takes a processing file for `leaseMs` when nobody holds it (or the holder's lease ran out:
   * a crashed worker). Null when it is not processing or another worker holds it.
   */
  async claim(id: string, leaseMs: number): Promise<FileRow | null> {
    const now = new Date();
    const { count } = await this.db.file.updateMany({
      where: { id, status: 'processing', OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      data: { leaseUntil: new Date(now.getTime() + leaseMs), attempts: { increment: 1 } },
    });
    return count > 0 ? this.db.file.findUnique({ where: { id } }) : null;
  }

  async renew(id: string, leaseMs: number): Promise<void> {
    await this.db.file.updateMany({
      where: { id, status: 'processing' },
      data: { leaseUntil: new Date(Date.now() + leaseMs) },
    });
  }

  /** Processing files nobody holds: never claimed (an event lost with the process) or abandoned. */
  async unclaimed(limit: number): Promise<string[]> {
    const rows = await this.db.file.findMany({
      where: { status: 'processing', OR: [{ leaseUntil: null }, { leaseUntil: { lt: new Date() } }] },
      select: { id: true },
      orderBy: { updatedAt: 'asc' },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  async progress(id: string, pagesDone: number, pagesTotal: number): Promise<void> {
    await this.db.file.updateMany({ where: { id, status: 'processing' }, data: { pagesDone, pagesTotal } });
  }

  async stillProcessing(id: string): Promise<boolean> {
    return (await this.db.file.count({ where: { id, status: 'processing' } })) > 0;
  }

  /**
   * Replaces the file's chunks and marks it ready, in one transaction and only while it is still
   * processing (a cancel or a delete in between wins): re-processing gives the same rows.
   */
  async finish(id: string, workspaceId: string, chunks: ChunkToStore[], textTruncated: boolean): Promise<boolean> {
    // Plain `pg` (decision 0008): Prisma's createMany walked every number of every embedding
    // (a hundred 256-number chunks cost it tens of milliseconds of CPU); here they go as one
    // array literal per chunk.
    const texts = chunks.map((c) => c.text);
    const vectors = chunks.map((c) => realArrayLiteral(c.embedding));
    // This process's clock, as for every other time the files component writes (created_at too).
    const now = new Date();
    return sqlTransaction(this.database.pool, async (tx) => {
      const marked = await tx.$executeRaw`
        UPDATE data.files SET status = 'ready', chunk_count = ${chunks.length}, text_truncated = ${textTruncated},
               lease_until = NULL, processed_at = ${now}, failure_reason = NULL, failure_message = NULL, updated_at = ${now}
         WHERE id = ${id}::uuid AND status = 'processing'`;
      if (marked === 0) return false;
      await tx.$executeRaw`DELETE FROM data.file_chunks WHERE file_id = ${id}::uuid`;
      if (chunks.length > 0) {
        await tx.$executeRaw`
          INSERT INTO data.file_chunks (file_id, workspace_id, ordinal, text, embedding)
          SELECT ${id}::uuid, ${workspaceId}::uuid, c.ordinal - 1, c.text, c.embedding::float4[]
            FROM unnest(${texts}::text[], ${vectors}::text[]) WITH ORDINALITY AS c(text, embedding, ordinal)`;
      }
      return true;
    });
  }

  async fail(id: string, reason: string, message: string): Promise<void> {
    await this.db.file.updateMany({
      where: { id, status: 'processing' },
      data: {
        status: 'failed',
        failureReason: reason,
        failureMessage: message,
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
