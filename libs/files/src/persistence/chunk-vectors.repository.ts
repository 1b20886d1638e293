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

  /** Every chunk vector of the workspace's ready files. */
  async vectors(workspaceId: string): Promise<ChunkVectorRow[]> {
    const { rows } = await this.database.pool.query<ChunkVectorRow>(
      `SELECT c.file_id::text AS f, c.ordinal AS o, array_send(c.embedding) AS e
         FROM data.file_chunks c JOIN data.files f ON f.id = c.file_id AND f.status = 'ready'
        WHERE c.workspace_id = $1::uuid`,
      [workspaceId],
    );
    return rows;
  }
}
