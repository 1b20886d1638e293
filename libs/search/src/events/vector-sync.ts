import type { SearchDb } from '../persistence/search-database.js';
import type { IndexedChunk, VectorIndexSync } from '../service/vector/vector-index.js';

/** Internal outbox event written by enrichment with the chunks (libs/fragments enrichment-state.ts). */
export const FRAGMENT_EMBEDDED_EVENT = 'fragment.embedded';
export const FRAGMENT_DELETED_EVENT = 'fragment.deleted';
export const VECTOR_SYNC_EVENTS = [FRAGMENT_EMBEDDED_EVENT, FRAGMENT_DELETED_EVENT];
/** The durable consumer of the search component that feeds an external vector index. */
export const VECTOR_SYNC_CONSUMER = 'search-vector-index';

/** What one sync did: wrote the chunks, removed the fragment, or found it already in sync. */
export type SyncOutcome = 'upserted' | 'deleted' | 'unchanged';

export interface BackfillProgress {
  upserted: number;
  deleted: number;
  unchanged: number;
  /** Fragments left to look at when the run started (an estimate while events keep coming). */
  pending: number;
  elapsedMs: number;
}

export interface BackfillOptions {
  /** Fragments read per query. */
  batchSize?: number;
  /** Checked between fragments: a stopped run leaves the rest to the next one. */
  shouldStop?: () => boolean;
  /** Called every `progressEvery` fragments and every `progressIntervalMs`, and at the end. */
  onProgress?: (progress: BackfillProgress, done: boolean) => void;
  progressEvery?: number;
  progressIntervalMs?: number;
  /** Only remove what was archived, deleted or emptied (the periodic sweep of the embedded mode). */
  onlyGone?: boolean;
}

const TX_OPTIONS = { maxWait: 60_000, timeout: 120_000 };
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
/** First key of the per-fragment advisory lock (the second is a hash of the fragment id). */
const LOCK_CLASS = 0x6b775653; // "kwVS"

type Tx = Pick<SearchDb, '$queryRaw' | '$executeRaw'>;

interface ChunkRow {
  ordinal: number;
  embedding: number[];
  version: number;
  created_at: Date;
}

/**
 * Keeps an external vector index (Qdrant) equal to data.fragment_chunks, one fragment at a
 * time: it reads the fragment and its chunks from Postgres (never trusting an event's payload,
 * so events may come late, twice or out of order) and writes what is there now. A fragment is
 * synced under a transaction-scoped advisory lock, so two workers (an event and the backfill,
 * or two replicas) never interleave their writes for one fragment; data.vector_index_sync
 * records what was written, which makes a redelivered event a no-op and the backfill
 * restartable.
 */
export class VectorIndexSyncer {
  constructor(
    private readonly db: SearchDb,
    private readonly index: VectorIndexSync,
  ) {}

  /** Brings the index in line with the fragment as it is in Postgres now. */
  async syncFragment(fragmentId: string): Promise<SyncOutcome> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${fragmentId}))`;
      const [fragment] = await tx.$queryRaw<Array<{ workspace_id: string; archived: boolean }>>`
        SELECT workspace_id::text AS workspace_id, archived_at IS NOT NULL AS archived FROM data.fragments WHERE id = ${fragmentId}::uuid`;
      const chunks = fragment && !fragment.archived ? await this.chunks(tx, fragmentId) : [];
      if (!fragment || fragment.archived || chunks.length === 0) {
        // Archived, deleted for good, or nothing embedded (empty text): nothing may be found.
        await this.index.deleteFragment(fragmentId);
        await tx.$executeRaw`DELETE FROM data.vector_index_sync WHERE fragment_id = ${fragmentId}::uuid`;
        return 'deleted';
      }
      // One embedding run writes all of a fragment's chunks in one transaction: one version and
      // one created_at identify it.
      const version = chunks[0]!.version;
      const embeddedAt = new Date(Math.max(...chunks.map((c) => new Date(c.created_at).getTime())));
      const [synced] = await tx.$queryRaw<Array<{ version: number; embedded_at: Date }>>`
        SELECT version, embedded_at FROM data.vector_index_sync WHERE fragment_id = ${fragmentId}::uuid`;
      if (synced && synced.version === version && new Date(synced.embedded_at).getTime() === embeddedAt.getTime())
        return 'unchanged';
      const indexed: IndexedChunk[] = chunks.map((c) => ({ chunkIndex: c.ordinal, vector: c.embedding.map(Number) }));
      await this.index.upsertFragment(fragment.workspace_id, fragmentId, version, indexed);
      await tx.$executeRaw`
        INSERT INTO data.vector_index_sync (fragment_id, workspace_id, version, embedded_at, synced_at)
        VALUES (${fragmentId}::uuid, ${fragment.workspace_id}::uuid, ${version}, ${embeddedAt}, now())
        ON CONFLICT (fragment_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, version = EXCLUDED.version, embedded_at = EXCLUDED.embedded_at, synced_at = now()`;
      return 'upserted';
    }, TX_OPTIONS);
  }

  /**
   * Syncs every fragment whose chunks the index does not hold yet (embedded before the index
   * was configured, or while it was down) and removes the fragments archived or deleted since.
   * Walks fragment ids in order, a batch at a time; what it did is in vector_index_sync, so a
   * run stopped half-way (shutdown, Qdrant down) is resumed by the next one without redoing
   * the synced part. When the index is empty (new or wiped), the sync records are dropped
   * first so everything is written again.
   */
  async backfill(options: BackfillOptions = {}): Promise<BackfillProgress> {
    const batchSize = options.batchSize ?? 200;
    const progressEvery = options.progressEvery ?? 1_000;
    const progressIntervalMs = options.progressIntervalMs ?? 10_000;
    const started = Date.now();
    if (!options.onlyGone && (await this.index.isEmpty()))
      await this.db.$executeRaw`DELETE FROM data.vector_index_sync`;
    const progress: BackfillProgress = {
      upserted: 0,
      deleted: 0,
      unchanged: 0,
      pending: options.onlyGone ? 0 : await this.countPending(),
      elapsedMs: 0,
    };
    let lastReport = started;
    let sinceReport = 0;
    const step = (outcome: SyncOutcome) => {
      progress[outcome]++;
      sinceReport++;
      const now = Date.now();
      if (sinceReport >= progressEvery || now - lastReport >= progressIntervalMs) {
        progress.elapsedMs = now - started;
        options.onProgress?.({ ...progress }, false);
        sinceReport = 0;
        lastReport = now;
      }
    };
    const passes = options.onlyGone ? [this.goneAfter] : [this.unsyncedAfter, this.goneAfter];
    for (const pass of passes) {
      const next = (cursor: string) => pass.call(this, cursor, batchSize);
      let cursor = NIL_UUID;
      for (;;) {
        if (options.shouldStop?.()) return this.finish(progress, started, options);
        const ids = await next(cursor);
        if (ids.length === 0) break;
        for (const id of ids) {
          if (options.shouldStop?.()) return this.finish(progress, started, options);
          step(await this.syncFragment(id));
        }
        cursor = ids[ids.length - 1]!;
      }
    }
    return this.finish(progress, started, options);
  }

  private finish(progress: BackfillProgress, started: number, options: BackfillOptions): BackfillProgress {
    progress.elapsedMs = Date.now() - started;
    options.onProgress?.({ ...progress }, true);
    return progress;
  }

  private async chunks(tx: Tx, fragmentId: string): Promise<ChunkRow[]> {
    return tx.$queryRaw<ChunkRow[]>`
      SELECT ordinal, embedding, version, created_at
        FROM data.fragment_chunks WHERE fragment_id = ${fragmentId}::uuid ORDER BY ordinal`;
  }

  /** Live fragments with chunks the index does not hold (no record, or an older embedding run). */
  private async unsyncedAfter(cursor: string, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`
      SELECT f.id::text AS id
        FROM data.fragments f
        JOIN LATERAL (SELECT max(c.created_at) AS embedded_at, max(c.version) AS version FROM data.fragment_chunks c WHERE c.fragment_id = f.id) e ON e.embedded_at IS NOT NULL
        LEFT JOIN data.vector_index_sync s ON s.fragment_id = f.id
       WHERE f.archived_at IS NULL AND f.id > ${cursor}::uuid
         AND (s.fragment_id IS NULL OR s.embedded_at <> e.embedded_at OR s.version <> e.version)
       ORDER BY f.id
       LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  /** Fragments the index holds that must not be found any more: archived, deleted, or without chunks. */
  private async goneAfter(cursor: string, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`
      SELECT s.fragment_id::text AS id
        FROM data.vector_index_sync s
        LEFT JOIN data.fragments f ON f.id = s.fragment_id
       WHERE s.fragment_id > ${cursor}::uuid
         AND (f.id IS NULL OR f.archived_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM data.fragment_chunks c WHERE c.fragment_id = s.fragment_id))
       ORDER BY s.fragment_id
       LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  private async countPending(): Promise<number> {
    const [row] = await this.db.$queryRaw<Array<{ count: bigint | number }>>`
      SELECT (
        (SELECT count(*) FROM data.fragments f
           JOIN LATERAL (SELECT max(c.created_at) AS embedded_at, max(c.version) AS version FROM data.fragment_chunks c WHERE c.fragment_id = f.id) e ON e.embedded_at IS NOT NULL
           LEFT JOIN data.vector_index_sync s ON s.fragment_id = f.id
          WHERE f.archived_at IS NULL AND (s.fragment_id IS NULL OR s.embedded_at <> e.embedded_at OR s.version <> e.version))
        + (SELECT count(*) FROM data.vector_index_sync s LEFT JOIN data.fragments f ON f.id = s.fragment_id
            WHERE f.id IS NULL OR f.archived_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM data.fragment_chunks c WHERE c.fragment_id = s.fragment_id))
      ) AS count`;
    return Number(row?.count ?? 0);
  }
}
