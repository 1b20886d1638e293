import { Inject, Injectable } from '@nestjs/common';
import { announcingOutbox, appendOutbox } from '@kw/platform-outbox';
import { FILES_DB, type FilesDb } from './files-database.js';
import type { FileRow, FileWithAttachments } from './rows.js';

export type { FileRow, FileWithAttachments };

export interface NewUpload {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  declaredMimeType: string;
  storageKey: string;
  createdBy: string;
}

export interface StoredBlob {
  sizeBytes: number;
  sha256: string;
  mimeType: string;
  kind: string;
}

export interface FileSearchRow {
  id: string;
  score: number;
  name_match: boolean;
  content_match: boolean;
  snippet: string;
  total: number;
}

const withAttachments = { attachments: { select: { fragmentId: true }, orderBy: { createdAt: 'asc' } } } as const;
/** The event that starts processing; the processing worker subscribes to it. */
export const FILE_UPLOADED_EVENT = 'file.uploaded';

/** Thrown inside complete's transaction to roll it back; never leaves the repository. */
class OverQuota extends Error {
  usedBefore = 0;
}

/** Files, their extracted chunks and their attachments to fragments. */
@Injectable()
export class FilesRepository {
  constructor(@Inject(FILES_DB) private readonly db: FilesDb) {}

  findById(id: string): Promise<FileWithAttachments | null> {
    return this.db.file.findUnique({ where: { id }, include: withAttachments });
  }

  /**
   * Bytes the workspace's files take; a reservation counts once its size is known. One row kept
   * by a trigger (FileUsage in the schema), not a sum over the workspace's files.
   */
  async usedBytes(workspaceId: string): Promise<number> {
    const usage = await this.db.fileUsage.findUnique({ where: { workspaceId } });
    return Number(usage?.usedBytes ?? 0n);
  }

  /** The upload's row, `uploading` until its blob is stored, with the attachment it asked for. */
  reserve(upload: NewUpload, attachTo: string | null): Promise<FileRow> {
    return this.db.file.create({
      data: {
        ...upload,
        status: 'uploading',
        ...(attachTo
          ? {
              attachments: {
                create: { fragmentId: attachTo, workspaceId: upload.workspaceId, createdBy: upload.createdBy },
              },
            }
          : {}),
      },
    });
  }

  /**
   * The blob is stored: the file becomes `processing` and its event is written in the same
   * transaction, so a committed file is always processed. Answers the file and what the
   * workspace's files take with it; null when the reservation is gone;
   * `{ overQuota }` (nothing written) when the workspace's files would then take more than
   * `quotaBytes`: the check reads the usage after this file's size was added to it, and that row
   * stays locked until the transaction ends, so uploads completing side by side are counted one
   * after the other and cannot together pass the quota.
   */
  async complete(
    id: string,
    blob: StoredBlob,
    quotaBytes: number,
  ): Promise<{ file: FileWithAttachments; usedBytes: number } | null | { overQuota: { usedBefore: number } }> {
    const over = new OverQuota();
    return announcingOutbox(
      this.db.$transaction(async (tx) => {
        const moved = await tx.file.updateMany({
          where: { id, status: 'uploading' },
          data: { ...blob, sizeBytes: BigInt(blob.sizeBytes), status: 'processing' },
        });
        if (moved.count === 0) return null;
        const row = await tx.file.findUniqueOrThrow({ where: { id }, include: withAttachments });
        const usage = await tx.fileUsage.findUnique({ where: { workspaceId: row.workspaceId } });
        const used = Number(usage?.usedBytes ?? 0n);
        if (used > quotaBytes) {
          over.usedBefore = used - blob.sizeBytes;
          throw over; // rolls the transaction back
        }
        await appendOutbox(tx, {
          aggregateType: 'file',
          aggregateId: id,
          eventType: FILE_UPLOADED_EVENT,
          payload: { fileId: id, workspaceId: row.workspaceId, kind: blob.kind, sizeBytes: blob.sizeBytes },
        });
        return { file: row, usedBytes: used };
      }),
    ).catch((err: unknown) => {
      if (err === over) return { overQuota: { usedBefore: over.usedBefore } };
      throw err;
    });
  }

  /** Drops a reservation that never completed; answers its blob key, or null when there was none. */
  async dropReservation(id: string): Promise<string | null> {
    const row = await this.db.file.findFirst({ where: { id, status: 'uploading' }, select: { storageKey: true } });
    if (!row) return null;
    const { count } = await this.db.file.deleteMany({ where: { id, status: 'uploading' } });
    return count > 0 ? row.storageKey : null;
  }

  update(id: string, data: { name?: string; description?: string }): Promise<FileWithAttachments> {
    return this.db.file.update({ where: { id }, data, include: withAttachments });
  }

  /** Deletes the row (chunks and attachments cascade); answers whether it existed. */
  async delete(id: string): Promise<boolean> {
    const { count } = await this.db.file.deleteMany({ where: { id } });
    return count > 0;
  }

  /** `processing` → `cancelled`; false when the file was not processing any more. */
  async cancel(id: string): Promise<boolean> {
    const { count } = await this.db.file.updateMany({
      where: { id, status: 'processing' },
      data: { status: 'cancelled', leaseUntil: null, processedAt: new Date() },
    });
    return count > 0;
  }

  attach(fileId: string, fragmentId: string, workspaceId: string, createdBy: string): Promise<unknown> {
    return this.db.fileAttachment.upsert({
      where: { fileId_fragmentId: { fileId, fragmentId } },
      create: { fileId, fragmentId, workspaceId, createdBy },
      update: {},
    });
  }

  async detach(fileId: string, fragmentId: string): Promise<boolean> {
    const { count } = await this.db.fileAttachment.deleteMany({ where: { fileId, fragmentId } });
    return count > 0;
  }

  listForFragment(fragmentId: string): Promise<FileWithAttachments[]> {
    return this.db.file.findMany({
      where: { attachments: { some: { fragmentId } }, status: { not: 'uploading' } },
      include: withAttachments,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /** A page of the workspace's stored files (not reservations), oldest first. */
  listInWorkspace(workspaceId: string, take: number, skip: number): Promise<FileWithAttachments[]> {
    return this.db.file.findMany({
      where: { workspaceId, status: { not: 'uploading' } },
      include: withAttachments,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
      skip,
    });
  }

  /** A stored file of the workspace with this name and content (what an import made before). */
  findSame(workspaceId: string, name: string, sha256: string): Promise<FileWithAttachments | null> {
    return this.db.file.findFirst({
      where: { workspaceId, name, sha256, status: { not: 'uploading' } },
      include: withAttachments,
    });
  }

  async findManyWithAttachments(ids: string[]): Promise<FileWithAttachments[]> {
    // No ids is the common case (a search that matched no file): Prisma would still send two statements.
    if (ids.length === 0) return [];
    return this.db.file.findMany({ where: { id: { in: ids } }, include: withAttachments });
  }

  /**
   * Files of a workspace whose name contains the query (`pattern`, an escaped ILIKE pattern) or whose extracted text matches it (any
   * of its words, `english` stemming, ranked by ts_rank): name matches first, then content.
   */
  search(
    workspaceId: string,
    words: string[],
    pattern: string,
    limit: number,
    offset: number,
  ): Promise<FileSearchRow[]> {
    // Each word through plainto_tsquery (never a syntax error), or-ed: a sentence finds files
    // that hold any of its words; stop words drop out.
    return this.db.$queryRaw<FileSearchRow[]>`
      WITH q AS (
        SELECT coalesce(string_agg(t::text, ' | '), '')::tsquery AS tsq
        FROM unnest(${words}::text[]) AS w, plainto_tsquery('english', w) AS t
        WHERE numnode(t) > 0
      ),
      content AS (
        SELECT c.file_id, max(ts_rank(to_tsvector('english', c.text), q.tsq)) AS rank,
               (array_agg(c.text ORDER BY ts_rank(to_tsvector('english', c.text), q.tsq) DESC))[1] AS best
        FROM data.file_chunks c, q
        WHERE c.workspace_id = ${workspaceId}::uuid AND to_tsvector('english', c.text) @@ q.tsq
        GROUP BY c.file_id
      ),
      hits AS (
        SELECT f.id, f.name ILIKE ${pattern} AS name_match, content.file_id IS NOT NULL AS content_match,
               (CASE WHEN f.name ILIKE ${pattern} THEN 1 ELSE 0 END) + coalesce(content.rank, 0) AS score,
               coalesce(content.best, '') AS best
        FROM data.files f LEFT JOIN content ON content.file_id = f.id
        WHERE f.workspace_id = ${workspaceId}::uuid AND f.status <> 'uploading'
          AND (f.name ILIKE ${pattern} OR content.file_id IS NOT NULL)
      )
      SELECT h.id, h.score::float8 AS score, h.name_match, h.content_match,
             CASE WHEN h.best = '' THEN '' ELSE ts_headline('english', h.best, q.tsq,
               'MaxWords=30, MinWords=10, MaxFragments=1, StartSel=**, StopSel=**') END AS snippet,
             (count(*) OVER ())::int AS total
      FROM hits h, q
      ORDER BY h.score DESC, h.id
      LIMIT ${limit} OFFSET ${offset}`;
  }

  /** The blob keys of the workspace's files (read before purgeWorkspace deletes their rows). */
  async storageKeysIn(workspaceId: string): Promise<string[]> {
    const rows = await this.db.file.findMany({ where: { workspaceId }, select: { storageKey: true } });
    return rows.map((r) => r.storageKey);
  }

  /** Every file of the workspace (chunks and attachments cascade): a moved workspace's copy removed. */
  async purgeWorkspace(workspaceId: string): Promise<number> {
    const { count } = await this.db.file.deleteMany({ where: { workspaceId } });
    return count;
  }
}
