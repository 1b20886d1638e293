import { FRAGMENT_DELETED_EVENT, FRAGMENT_EMBEDDED_EVENT } from '@kw/contracts';
import type { VectorSyncRepository } from '../persistence/vector-sync.repository.js';
import type { IndexedChunk, VectorIndexSync } from '../service/vector/vector-index.js';

/** Internal outbox event written by enrichment with the chunks (declared in @kw/contracts). */
export { FRAGMENT_DELETED_EVENT, FRAGMENT_EMBEDDED_EVENT };
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

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
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
    private readonly store: VectorSyncRepository,
    private readonly index: VectorIndexSync,
  ) {}

  /** Brings the index in line with the fragment as it is in Postgres now. */
  async syncFragment(fragmentId: string): Promise<SyncOutcome> {
    return this.store.withFragmentLock(fragmentId, async (tx) => {
      const fragment = await tx.fragment();
      const chunks = fragment && !fragment.archived ? await tx.chunks() : [];
      if (!fragment || fragment.archived || chunks.length === 0) {
        // Archived, deleted for good, or nothing embedded (empty text): nothing may be found.
        await this.index.deleteFragment(fragmentId);
        await tx.forget();
        return 'deleted';
      }
      // One embedding run writes all of a fragment's chunks in one transaction: one version and
      // one created_at identify it.
      const version = chunks[0]!.version;
      const embeddedAt = new Date(Math.max(...chunks.map((c) => new Date(c.created_at).getTime())));
      const synced = await tx.synced();
      if (synced && synced.version === version && new Date(synced.embedded_at).getTime() === embeddedAt.getTime())
        return 'unchanged';
      const indexed: IndexedChunk[] = chunks.map((c) => ({ chunkIndex: c.ordinal, vector: c.embedding.map(Number) }));
      await this.index.upsertFragment(fragment.workspace_id, fragmentId, version, indexed);
      await tx.record(fragment.workspace_id, version, embeddedAt);
      return 'upserted';
    });
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
    if (!options.onlyGone && (await this.index.isEmpty())) await this.store.forgetAll();
    const progress: BackfillProgress = {
      upserted: 0,
      deleted: 0,
      unchanged: 0,
      pending: options.onlyGone ? 0 : await this.store.countPending(),
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
    const passes = options.onlyGone ? ['goneAfter' as const] : ['unsyncedAfter' as const, 'goneAfter' as const];
    for (const pass of passes) {
      const next = (cursor: string) => this.store[pass](cursor, batchSize);
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
}
