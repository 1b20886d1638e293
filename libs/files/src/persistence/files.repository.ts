import { Inject, Injectable } from '@nestjs/common';
import { sqlStatements, type Database, type SqlExecutor } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { announcingOutbox, appendOutbox } from '@kw/platform-outbox';
import { HEADLINE_FROM, HEADLINE_TO, headlineOptions, snippetHtml, type CorpusStatistics } from '@kw/platform-ranking';
import { CHUNK_BM25_B, CHUNK_BM25_K1 } from '../domain/chunk-ranking.js';
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

/** A file's best chunk for a query and its score. */
export interface ChunkScoreRow {
  fileId: string;
  ordinal: number;
  score: number;
}

/** What a listing may narrow to. */
export interface ListedFiles {
  status?: string;
  kind?: string;
}

// A reservation still uploading is never listed, whatever the filter.
const listedWhere = (workspaceId: string, { status, kind }: ListedFiles) => ({
  workspaceId,
  status: status ?? { not: 'uploading' },
  ...(kind ? { kind } : {}),
});

/** A chunk's snippet: one passage of 10-30 words around the query's. */
const CHUNK_SNIPPET_SHAPE = headlineOptions({ maxWords: 30, minWords: 10, maxFragments: 1 });
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
  /**
   * The statements of a search (candidates, statistics, names, snippets) through plain `pg`: a
   * Prisma `$queryRaw` still passes its query compiler, and every workspace search's first page
   * asks these too (decision 0008).
   */
  private readonly sql: SqlExecutor;

  constructor(
    @Inject(FILES_DB) private readonly db: FilesDb,
    @Inject(DATABASE) database: Pick<Database, 'pool'>,
  ) {
    this.sql = sqlStatements(() => database.pool);
  }

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

  /** Every attachment to a fragment that no longer exists (deleted for good); answers how many went. */
  async detachFragment(fragmentId: string): Promise<number> {
    const { count } = await this.db.fileAttachment.deleteMany({ where: { fragmentId } });
    return count;
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

  /** A page of the workspace's stored files, newest first (ties by id), of one status or kind if given. */
  listNewest(workspaceId: string, filter: ListedFiles, take: number, skip: number): Promise<FileWithAttachments[]> {
    return this.db.file.findMany({
      where: listedWhere(workspaceId, filter),
      include: withAttachments,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
      skip,
    });
  }

  /** How many files listNewest pages through. */
  countListed(workspaceId: string, filter: ListedFiles): Promise<number> {
    return this.db.file.count({ where: listedWhere(workspaceId, filter) });
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
   * Files whose extracted text holds any of the query's words (`english` stemming, stop words
   * dropped), best first by the Okapi BM25 score of their best chunk, over the inverted index
   * data.file_chunk_terms: only the rows of the query's words are read, and their count per word
   * is its document frequency among the workspace's chunks (`corpus`: their count and average
   * length, corpusStatistics). Ties by file id.
   */
  async keywordCandidates(
    workspaceIds: readonly string[],
    query: string,
    corpus: CorpusStatistics,
    depth: number,
  ): Promise<ChunkScoreRow[]> {
    return this.sql.$queryRaw<ChunkScoreRow[]>`
      WITH postings AS (
        SELECT t.file_id, t.ordinal, t.lexeme, t.tf::float8 AS tf, t.length
          FROM data.file_chunk_terms t
         WHERE t.workspace_id = ANY(${workspaceIds}::uuid[])
           AND t.lexeme IN (SELECT u.lexeme FROM unnest(to_tsvector('english', ${query})) AS u)
      ),
      frequencies AS (
        SELECT lexeme, count(*)::float8 AS df FROM postings GROUP BY lexeme
      ),
      chunk_scores AS (
        SELECT p.file_id, p.ordinal,
               sum(ln(1 + (greatest(${corpus.documents}::float8, fr.df) - fr.df + 0.5) / (fr.df + 0.5))
                   * p.tf * (${CHUNK_BM25_K1}::float8 + 1)
                   / (p.tf + ${CHUNK_BM25_K1}::float8 * (1 - ${CHUNK_BM25_B}::float8 + ${CHUNK_BM25_B}::float8 * p.length / ${corpus.averageLength}::float8))) AS score
          FROM postings p JOIN frequencies fr USING (lexeme)
         GROUP BY p.file_id, p.ordinal
      ),
      best AS (
        SELECT DISTINCT ON (file_id) file_id, ordinal, score
          FROM chunk_scores ORDER BY file_id, score DESC, ordinal
      )
      SELECT file_id::text AS "fileId", ordinal, score::float8 AS score
        FROM best ORDER BY score DESC, file_id LIMIT ${depth}`;
  }

  /** How many chunks the workspace's files have and their average BM25 length (a scan of its chunks). */
  async corpusStatistics(workspaceIds: readonly string[]): Promise<CorpusStatistics> {
    const [row] = await this.sql.$queryRaw<{ documents: number; average_length: number }[]>`
      SELECT count(*)::float8 AS documents, coalesce(avg(search_length), 0)::float8 AS average_length
        FROM data.file_chunks WHERE workspace_id = ANY(${workspaceIds}::uuid[])`;
    return { documents: Number(row?.documents ?? 0), averageLength: Math.max(Number(row?.average_length ?? 0), 1) };
  }

  /** Files whose name contains the query (`pattern`, an escaped ILIKE pattern), by id; uploads still running never. */
  async nameMatches(workspaceIds: readonly string[], pattern: string, max: number): Promise<string[]> {
    const rows = await this.sql.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM data.files
       WHERE workspace_id = ANY(${workspaceIds}::uuid[]) AND status <> 'uploading' AND name ILIKE ${pattern}
       ORDER BY id LIMIT ${max}`;
    return rows.map((r) => r.id);
  }

  /**
   * Which of the files hold one of the excluded words or phrases (a search's `-word` and
   * `-"a phrase"`): in the name (its punctuation read as spaces, so `draft-v2.pdf` holds "draft",
   * where the full-text parser would read one file-name token) or in a chunk of the extracted text, read as the fragments' exclusions are (English
   * stemming, stop words dropped, each a `phraseto_tsquery`: a phrase's words in order). The
   * inverted index narrows the chunks to those holding every word of an exclusion; only those
   * are parsed to check the order. An exclusion of stop words only holds nowhere.
   */
  async holdingAny(fileIds: readonly string[], exclusions: readonly string[]): Promise<Set<string>> {
    if (fileIds.length === 0 || exclusions.length === 0) return new Set();
    const rows = await this.sql.$queryRaw<{ id: string }[]>`
      WITH exclusion AS (
        SELECT x.n, phraseto_tsquery('english', x.text) AS q,
               array(SELECT u.lexeme FROM unnest(to_tsvector('english', x.text)) AS u) AS lexemes
          FROM unnest(${exclusions}::text[]) WITH ORDINALITY AS x(text, n)
      ),
      candidate AS (
        SELECT f.id, f.workspace_id, f.name FROM data.files f WHERE f.id = ANY(${fileIds}::uuid[])
      ),
      narrowed AS (
        SELECT t.file_id, t.ordinal, x.n
          FROM exclusion x
          JOIN candidate f ON TRUE
          JOIN data.file_chunk_terms t
            ON t.workspace_id = f.workspace_id AND t.file_id = f.id AND t.lexeme = ANY(x.lexemes)
         WHERE cardinality(x.lexemes) > 0
         GROUP BY t.file_id, t.ordinal, x.n, x.lexemes
        HAVING count(*) = cardinality(x.lexemes)
      )
      SELECT f.id::text AS id FROM candidate f, exclusion x
       WHERE cardinality(x.lexemes) > 0
         AND to_tsvector('english', regexp_replace(f.name, '[[:punct:]]+', ' ', 'g')) @@ x.q
      UNION
      SELECT n.file_id::text FROM narrowed n
        JOIN exclusion x USING (n)
        JOIN data.file_chunks c ON c.file_id = n.file_id AND c.ordinal = n.ordinal
       WHERE to_tsvector('english', c.text) @@ x.q`;
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The snippet of each given chunk: its words around the query's (any of them, stemmed) in
   * `<mark>`, or its opening when it holds none of them (a match by meaning); safe HTML whose
   * only markup is `<mark>` (snippetHtml). Keyed `fileId:ordinal`.
   */
  async snippets(query: string, chunks: { fileId: string; ordinal: number }[]): Promise<Map<string, string>> {
    if (chunks.length === 0) return new Map();
    const rows = await this.sql.$queryRaw<{ key: string; snippet: string }[]>`
      WITH highlight AS (
        -- Each word a quoted tsquery literal (a quote doubled, a backslash escaped), or-ed.
        SELECT coalesce(string_agg(${"'"} || replace(replace(u.lexeme, ${'\\'}, ${'\\\\'}), ${"'"}, ${"''"}) || ${"'"}, ' | '), '')::tsquery AS tsq
          FROM unnest(to_tsvector('english', ${query})) AS u
      )
      SELECT c.file_id::text || ':' || c.ordinal AS key,
             ts_headline('english', translate(c.text, ${HEADLINE_FROM}, ${HEADLINE_TO}), h.tsq, ${CHUNK_SNIPPET_SHAPE}) AS snippet
        FROM unnest(${chunks.map((c) => c.fileId)}::uuid[], ${chunks.map((c) => c.ordinal)}::int[]) AS k(file_id, ordinal)
        JOIN data.file_chunks c ON c.file_id = k.file_id AND c.ordinal = k.ordinal, highlight h`;
    return new Map(rows.map((r) => [r.key, snippetHtml(r.snippet)]));
  }

  /** A page of a file's chunks in order (their ordinals are 0, 1, ... as processing stored them). */
  chunks(fileId: string, offset: number, limit: number): Promise<{ ordinal: number; text: string }[]> {
    return this.db.fileChunk.findMany({
      where: { fileId, ordinal: { gte: offset } },
      select: { ordinal: true, text: true },
      orderBy: { ordinal: 'asc' },
      take: limit,
    });
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
