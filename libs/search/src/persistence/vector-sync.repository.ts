import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_DB, type SearchDb } from './search-database.js';

const TX_OPTIONS = { maxWait: 60_000, timeout: 120_000 };
/** First key of the per-fragment advisory lock (the second is a hash of the fragment id). */
const LOCK_CLASS = 0x6b775653; // "kwVS"

type Tx = Pick<SearchDb, '$queryRaw' | '$executeRaw'>;

export interface ChunkRow {
  ordinal: number;
  embedding: number[];
  version: number;
  created_at: Date;
}

/** The statements of one fragment's sync, inside its transaction and under its advisory lock. */
export class FragmentSync {
  constructor(
    private readonly tx: Tx,
    private readonly fragmentId: string,
  ) {}

  /** The fragment's workspace and whether it is archived; undefined when deleted for good. */
  async fragment(): Promise<{ workspace_id: string; archived: boolean } | undefined> {
    const [fragment] = await this.tx.$queryRaw<Array<{ workspace_id: string; archived: boolean }>>`
      SELECT workspace_id::text AS workspace_id, archived_at IS NOT NULL AS archived FROM search_read.fragments WHERE id = ${this.fragmentId}::uuid`;
    return fragment;
  }

  async chunks(): Promise<ChunkRow[]> {
    return this.tx.$queryRaw<ChunkRow[]>`
      SELECT ordinal, embedding, version, created_at
        FROM search_read.fragment_chunks WHERE fragment_id = ${this.fragmentId}::uuid ORDER BY ordinal`;
  }

  /** What the index was last given of the fragment, if anything. */
  async synced(): Promise<{ version: number; embedded_at: Date } | undefined> {
    const [synced] = await this.tx.$queryRaw<Array<{ version: number; embedded_at: Date }>>`
      SELECT version, embedded_at FROM data.vector_index_sync WHERE fragment_id = ${this.fragmentId}::uuid`;
    return synced;
  }

  async forget(): Promise<void> {
    await this.tx.$executeRaw`DELETE FROM data.vector_index_sync WHERE fragment_id = ${this.fragmentId}::uuid`;
  }

  async record(workspaceId: string, version: number, embeddedAt: Date): Promise<void> {
    await this.tx.$executeRaw`
      INSERT INTO data.vector_index_sync (fragment_id, workspace_id, version, embedded_at, synced_at)
      VALUES (${this.fragmentId}::uuid, ${workspaceId}::uuid, ${version}, ${embeddedAt}, now())
      ON CONFLICT (fragment_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, version = EXCLUDED.version, embedded_at = EXCLUDED.embedded_at, synced_at = now()`;
  }
}

/**
 * data.vector_index_sync (search's own table: what an external vector index was given) and the
 * reads of fragments and chunks the sync compares it with. One fragment is synced in one Prisma
 * transaction under a transaction-scoped advisory lock (the transaction rule, docs/architecture.md).
 */
@Injectable()
export class VectorSyncRepository {
  constructor(@Inject(SEARCH_DB) private readonly db: SearchDb) {}

  /** Runs `work` in a transaction holding the fragment's advisory lock. */
  async withFragmentLock<T>(fragmentId: string, work: (sync: FragmentSync) => Promise<T>): Promise<T> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${fragmentId}))`;
      return work(new FragmentSync(tx, fragmentId));
    }, TX_OPTIONS);
  }

  /** Drops every sync record (the index is new or was wiped: everything is written again). */
  async forgetAll(): Promise<void> {
    await this.db.$executeRaw`DELETE FROM data.vector_index_sync`;
  }

  /** Live fragments with chunks the index does not hold (no record, or an older embedding run). */
  async unsyncedAfter(cursor: string, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`
      SELECT f.id::text AS id
        FROM search_read.fragments f
        JOIN LATERAL (SELECT max(c.created_at) AS embedded_at, max(c.version) AS version FROM search_read.fragment_chunks c WHERE c.fragment_id = f.id) e ON e.embedded_at IS NOT NULL
        LEFT JOIN data.vector_index_sync s ON s.fragment_id = f.id
       WHERE f.archived_at IS NULL AND f.id > ${cursor}::uuid
         AND (s.fragment_id IS NULL OR s.embedded_at <> e.embedded_at OR s.version <> e.version)
       ORDER BY f.id
       LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  /** Fragments the index holds that must not be found any more: archived, deleted, or without chunks. */
  async goneAfter(cursor: string, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`
      SELECT s.fragment_id::text AS id
        FROM data.vector_index_sync s
        LEFT JOIN search_read.fragments f ON f.id = s.fragment_id
       WHERE s.fragment_id > ${cursor}::uuid
         AND (f.id IS NULL OR f.archived_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM search_read.fragment_chunks c WHERE c.fragment_id = s.fragment_id))
       ORDER BY s.fragment_id
       LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  async countPending(): Promise<number> {
    const [row] = await this.db.$queryRaw<Array<{ count: bigint | number }>>`
      SELECT (
        (SELECT count(*) FROM search_read.fragments f
           JOIN LATERAL (SELECT max(c.created_at) AS embedded_at, max(c.version) AS version FROM search_read.fragment_chunks c WHERE c.fragment_id = f.id) e ON e.embedded_at IS NOT NULL
           LEFT JOIN data.vector_index_sync s ON s.fragment_id = f.id
          WHERE f.archived_at IS NULL AND (s.fragment_id IS NULL OR s.embedded_at <> e.embedded_at OR s.version <> e.version))
        + (SELECT count(*) FROM data.vector_index_sync s LEFT JOIN search_read.fragments f ON f.id = s.fragment_id
            WHERE f.id IS NULL OR f.archived_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM search_read.fragment_chunks c WHERE c.fragment_id = s.fragment_id))
      ) AS count`;
    return Number(row?.count ?? 0);
  }
}
