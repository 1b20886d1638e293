import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { SEARCH_DB, type SearchDb } from '../search-database.js';
import { ExactCosineIndex } from './exact-cosine-index.js';
import { PgvectorIndex } from './pgvector-index.js';

/** A live, embedded fragment's current embedding run (from its first chunk). */
export interface LiveRunRow {
  w: string;
  f: string;
  v: number;
  t: number;
}

/** One chunk's vector as `array_send` writes it (binary float4[]), with its run. */
export interface ChunkVectorRow {
  f: string;
  v: number;
  t: number;
  e: Uint8Array;
}

/** What the in-process vector index reads of Postgres (service/vector/memory-vector-index.ts). */
export interface ChunkVectorSource {
  liveRuns(workspaceIds: string[]): Promise<LiveRunRow[]>;
  runsSince(workspaceIds: string[], sinceMs: number): Promise<LiveRunRow[]>;
  currentRuns(fragmentIds: string[]): Promise<LiveRunRow[]>;
  chunkVectors(fragmentIds: string[]): Promise<ChunkVectorRow[]>;
}

/** What the Qdrant adapter checks in Postgres: which of its hits are still live at their embedded version. */
export interface LiveFragmentCheck {
  liveFragmentIds(fragmentIds: string[], workspaceIds: string[]): Promise<string[]>;
}

/**
 * The chunk embeddings as the vector indexes read them: the Postgres-side indexes (pgvector,
 * exact cosine), the in-process index's loads (plain `pg`: Prisma's raw queries cost ~10x more
 * per row for the vectors of a large workspace), the warm-up order and the Qdrant liveness
 * check, and whether pgvector is there.
 */
@Injectable()
export class ChunkVectorsRepository implements ChunkVectorSource, LiveFragmentCheck {
  constructor(
    @Inject(SEARCH_DB) private readonly db: SearchDb,
    /** `database`: the process's (never null here: SEARCH_DB refuses to start without one). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** pgvector over the chunks, on their stored vectors when the read contract has them. */
  async pgvectorIndex(schema: string): Promise<PgvectorIndex> {
    const stored = await this.db.$queryRawUnsafe<unknown[]>(
      `SELECT 1 FROM information_schema.columns
        WHERE table_schema = 'search_read' AND table_name = 'fragment_chunks' AND column_name = 'embedding_vector'`,
    );
    return new PgvectorIndex(this.db, schema, stored.length > 0);
  }

  exactIndex(): ExactCosineIndex {
    return new ExactCosineIndex(this.db);
  }

  /** The schema of the installed `vector` extension, installing it when available; null if neither. */
  async pgvectorSchema(): Promise<string | null> {
    const installed = async () =>
      (
        await this.db.$queryRawUnsafe<{ schema: string }[]>(
          `SELECT n.nspname::text AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
        )
      )[0]?.schema ?? null;
    const existing = await installed();
    if (existing) return existing;
    const available = await this.db.$queryRawUnsafe<unknown[]>(
      `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
    );
    if (available.length === 0) return null;
    // Needs CREATE on the database (a superuser in embedded mode); without it, fall back.
    await this.db.$executeRawUnsafe('CREATE EXTENSION IF NOT EXISTS vector').catch(() => undefined);
    return installed();
  }

  /** The current embedding run of every live fragment with chunks in these workspaces. */
  async liveRuns(workspaceIds: string[]): Promise<LiveRunRow[]> {
    const { rows } = await this.database.pool.query<LiveRunRow>(
      `SELECT c.workspace_id::text AS w, c.fragment_id::text AS f, c.version AS v, (extract(epoch FROM c.created_at) * 1000)::float8 AS t
         FROM search_read.fragment_chunks c
         JOIN search_read.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
        WHERE c.workspace_id = ANY($1::uuid[]) AND c.ordinal = 0`,
      [workspaceIds],
    );
    return rows;
  }

  /** The current runs of live fragments written after `sinceMs` (epoch ms): a range of (workspace_id, created_at). */
  async runsSince(workspaceIds: string[], sinceMs: number): Promise<LiveRunRow[]> {
    const { rows } = await this.database.pool.query<LiveRunRow>(
      `SELECT c.workspace_id::text AS w, c.fragment_id::text AS f, c.version AS v, (extract(epoch FROM c.created_at) * 1000)::float8 AS t
         FROM search_read.fragment_chunks c
         JOIN search_read.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
        WHERE c.workspace_id = ANY($1::uuid[]) AND c.created_at > to_timestamp($2::float8 / 1000) AND c.ordinal = 0`,
      [workspaceIds, sinceMs],
    );
    return rows;
  }

  /**
   * The current run of each of these fragments that is live: not archived, and its chunks of its
   * current version. A fragment missing from the answer was deleted, archived, or has new text
   * not embedded yet. (Chunks follow a new version that left the text alone, keeping their
   * created_at: the same run under a new version.)
   */
  async currentRuns(fragmentIds: string[]): Promise<LiveRunRow[]> {
    if (fragmentIds.length === 0) return [];
    // `id = ANY(...)` keeps the primary key's index for any count (a join with unnest() made the
    // planner hash the whole table for a few hundred ids).
    const { rows } = await this.database.pool.query<LiveRunRow>(
      `SELECT c.workspace_id::text AS w, f.id::text AS f, c.version AS v, (extract(epoch FROM c.created_at) * 1000)::float8 AS t
         FROM search_read.fragments f
         JOIN search_read.fragment_chunks c ON c.fragment_id = f.id AND c.ordinal = 0 AND c.version = f.version
        WHERE f.id = ANY($1::uuid[]) AND f.archived_at IS NULL`,
      [fragmentIds],
    );
    return rows;
  }

  /** Every chunk vector of the fragments, by fragment then ordinal. */
  async chunkVectors(fragmentIds: string[]): Promise<ChunkVectorRow[]> {
    const { rows } = await this.database.pool.query<ChunkVectorRow>(
      `SELECT fragment_id::text AS f, version AS v, (extract(epoch FROM created_at) * 1000)::float8 AS t, array_send(embedding) AS e
         FROM search_read.fragment_chunks WHERE fragment_id = ANY($1::uuid[]) ORDER BY fragment_id, ordinal`,
      [fragmentIds],
    );
    return rows;
  }

  /** Workspaces with embedded fragments, largest first (the warm-up order). */
  async workspacesBySize(): Promise<Array<{ id: string; fragments: number }>> {
    const { rows } = await this.database.pool.query<{ id: string; fragments: number }>(
      `SELECT workspace_id::text AS id, count(*)::int AS fragments FROM search_read.fragment_chunks WHERE ordinal = 0 GROUP BY workspace_id ORDER BY count(*) DESC, workspace_id`,
    );
    return rows;
  }

  /** Live: not archived, and its chunks in Postgres are of its current version. */
  async liveFragmentIds(fragmentIds: string[], workspaceIds: string[]): Promise<string[]> {
    const live = await this.db.$queryRawUnsafe<{ id: string }[]>(
      `SELECT f.id::text AS id FROM search_read.fragments f
        WHERE f.id = ANY($1::uuid[]) AND f.workspace_id = ANY($2::uuid[]) AND f.archived_at IS NULL
          AND EXISTS (SELECT 1 FROM search_read.fragment_chunks c WHERE c.fragment_id = f.id AND c.version = f.version)`,
      fragmentIds,
      workspaceIds,
    );
    return live.map((r) => r.id);
  }
}
