import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';

/** One chunk's embedding as `array_send` writes it (binary float4[]). */
export interface ChunkVectorRow {
  f: string;
  o: number;
  e: Uint8Array;
}

/**
 * The chunk embeddings of a workspace's processed files as files search's in-process vectors
 * read them (service/chunk-vectors.ts). Plain `pg` and binary arrays: Prisma's raw queries cost
 * about ten times more per row for the vectors of a large workspace.
 */
@Injectable()
export class ChunkVectorsRepository {
  constructor(@Inject(DATABASE) private readonly database: Pick<Database, 'pool'>) {}

  /**
   * What the workspace's searchable chunks are, in one comparable key (how many files are ready
   * and when each was processed: a file processed, processed again, deleted or moved away
   * changes it, and a file's chunks change only with one of those), and how many there are.
   */
  async version(workspaceId: string): Promise<{ key: string; chunks: number }> {
    const { rows } = await this.database.pool.query<{ files: number; processed: number; chunks: number }>(
      `SELECT count(*)::int AS files, coalesce(sum(extract(epoch FROM processed_at)), 0)::float8 AS processed,
              coalesce(sum(chunk_count), 0)::int AS chunks
         FROM data.files WHERE workspace_id = $1::uuid AND status = 'ready'`,
      [workspaceId],
    );
    const { files, processed, chunks } = rows[0]!;
    return { key: `${files}:${processed}:${chunks}`, chunks };
  }

  /** The workspace's ready files and when each was processed (epoch ms): what a held copy is compared with. */
  async readyFiles(workspaceId: string): Promise<Array<{ f: string; p: number }>> {
    const { rows } = await this.database.pool.query<{ f: string; p: number }>(
      `SELECT id::text AS f, (extract(epoch FROM processed_at) * 1000)::float8 AS p
         FROM data.files WHERE workspace_id = $1::uuid AND status = 'ready'`,
      [workspaceId],
    );
    return rows;
  }

  /** Every chunk vector of these files (of the workspace, and ready), by file then ordinal. */
  async vectors(workspaceId: string, fileIds: string[]): Promise<ChunkVectorRow[]> {
    const { rows } = await this.database.pool.query<ChunkVectorRow>(
      `SELECT c.file_id::text AS f, c.ordinal AS o, array_send(c.embedding) AS e
         FROM data.file_chunks c JOIN data.files f ON f.id = c.file_id AND f.status = 'ready'
        WHERE c.workspace_id = $1::uuid AND c.file_id = ANY($2::uuid[])
        ORDER BY c.file_id, c.ordinal`,
      [workspaceId, fileIds],
    );
    return rows;
  }
}
