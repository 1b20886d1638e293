import { decodeFloat4Array, unit } from '@kw/platform-ranking';
import type { ChunkVectorSource, LiveRunRow } from '../../persistence/vectors/chunk-vectors.repository.js';
import { VectorColumns } from './vector-columns.js';
import type { VectorHit, VectorIndex, VectorQuery } from './vector-index.js';

/** One fragment's current embedding run, held in memory (its vectors are in the workspace's VectorColumns of `dim`). */
interface Held {
  /** The run's version and created_at (ms) (one run writes all chunks of a fragment at once). */
  version: number;
  /** The run's identity across versions (an update that leaves the text alone keeps it). */
  createdMs: number;
  dim: number;
  /** Chunks x dim. */
  floats: number;
}

/** A live, embedded fragment as Postgres has it now (from its first chunk). */
interface LiveRun {
  workspaceId: string;
  fragmentId: string;
  version: number;
  createdMs: number;
}

/** A scored fragment, with what the liveness check and forgetting need. */
interface RankedHit {
  workspaceId: string;
  held: Held;
  hit: VectorHit;
}

/** Candidates checked beyond the ones still needed, so a few dead ones cost no second round trip. */
const LIVENESS_SLACK = 10;

/** When a workspace was last read: fully (every live run) and at all (new runs since). */
interface Synced {
  fullAt: number;
  readAt: number;
}

/** Fragment ids per load statement. */
const LOAD_BATCH = 500;
/** How long a workspace too big for the memory budget is left to the fallback before it is tried again. */
const OVERSIZED_RETRY_MS = 10 * 60_000;
/**
 * How often a workspace's live runs are all read again; in between a query reads only the runs
 * written since its last read. The candidates of each answer are checked anyway, so this bounds
 * how long the vectors of deleted fragments that never come up occupy memory.
 */
const FULL_READ_MS = 60_000;
/**
 * How far before the last read "since" reaches: a run's created_at is its transaction's start,
 * and a transaction that started before a read may commit after it (enrichment's take
 * milliseconds; one that takes longer is caught by the next full read).
 */
const COMMIT_MARGIN_MS = 2_000;

/**
 * Vector search in the search process's memory, for PostgreSQL without pgvector (where the
 * fallback, exact cosine in SQL, costs ~0.1 ms per chunk and query). Postgres stays the truth
 * and nothing has to feed this index: a query reads the embedding runs written since the
 * workspace's last read (an index range on `(workspace_id, created_at)`; every live run of the
 * workspace at its first query and once a minute), loads the vectors of runs it does not hold
 * yet (binary `array_send`, so parsing stays cheap), scores in memory, and checks its best
 * candidates against Postgres by primary key: still live, at the version held (archived,
 * deleted and re-written fragments drop out, and are forgotten). So a search sees every commit before
 * it, whoever wrote it, on every replica, with no events and no warm-up other than the first
 * query of a workspace. (Reading every live run per query cost 20 ms at 10k fragments.)
 *
 * Memory is bounded (`maxFloats`, ~4 bytes each): least recently searched workspaces are
 * dropped first, and a workspace that alone exceeds the budget is searched by `fallback`.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly name = 'memory' as const;
  /** Per workspace, per fragment; Map order is recency of use (oldest first). */
  private readonly workspaces = new Map<string, Map<string, Held>>();
  /** Per workspace, the vectors of its held fragments by dimension. */
  private readonly columns = new Map<string, Map<number, VectorColumns>>();
  private readonly oversizedUntil = new Map<string, number>();
  private readonly synced = new Map<string, Synced>();
  /** Loads in flight per workspace (settled promises: a failure is the query's own to report). */
  private readonly loading = new Map<string, Promise<void>>();
  private floats = 0;

  /** `chunks`: the reads of persistence/vectors/chunk-vectors.repository.ts (plain `pg`). */
  constructor(
    private readonly chunks: ChunkVectorSource,
    private readonly maxFloats: number,
    private readonly fallback: VectorIndex,
  ) {}

  /** Floats held now (for tests and metrics). */
  get heldFloats(): number {
    return this.floats;
  }

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    if (query.workspaceIds.length === 0 || query.limit <= 0) return [];
    const now = Date.now();
    if (query.workspaceIds.some((id) => (this.oversizedUntil.get(id) ?? 0) > now)) return this.fallback.nearest(query);

    // A workspace the start-up warm-up is loading is waited for, so the same vectors are not
    // read twice; the refresh below is then a delta. (Two concurrent first queries of a
    // workspace that was not warmed still both load it.)
    await Promise.all(query.workspaceIds.map((id) => this.loading.get(id)));
    const held = await this.refresh(query.workspaceIds, now);
    return held ? this.liveBest(query) : this.fallback.nearest(query);
  }

  /**
   * Loads a workspace's vectors ahead of its first query (the start-up warm-up), without
   * evicting any other workspace: false when it does not fit beside what is held.
   */
  async warm(workspaceId: string): Promise<boolean> {
    const inFlight = this.loading.get(workspaceId);
    if (inFlight) {
      await inFlight;
      return this.workspaces.has(workspaceId);
    }
    const done = this.refresh([workspaceId], Date.now(), false);
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.loading.set(workspaceId, settled);
    void settled.then(() => this.loading.delete(workspaceId));
    return done;
  }

  /**
   * Loads the runs of these workspaces written since their last read (all live runs of those
   * not read fully for FULL_READ_MS); false when they do not fit the budget. `evict`: make room
   * by dropping least recently searched workspaces (a query does; the warm-up does not).
   * Workspaces that exceed the budget on their own go to the fallback.
   */
  private async refresh(workspaceIds: string[], now: number, evict = true): Promise<boolean> {
    const full: string[] = [];
    const since: string[] = [];
    for (const id of workspaceIds) {
      const synced = this.synced.get(id);
      if (!synced || !this.workspaces.has(id) || now - synced.fullAt > FULL_READ_MS) full.push(id);
      else since.push(id);
    }
    const readAt = Date.now();
    if (full.length > 0) {
      const live = liveRunsOf(await this.chunks.liveRuns(full));
      await this.loadMissing(live);
      this.forgetGone(full, live);
      for (const id of full) this.synced.set(id, { fullAt: now, readAt });
    }
    if (since.length > 0) {
      const from = Math.min(...since.map((id) => this.synced.get(id)!.readAt)) - COMMIT_MARGIN_MS;
      await this.loadMissing(liveRunsOf(await this.chunks.runsSince(since, from)));
      for (const id of since) this.synced.get(id)!.readAt = readAt;
    }
    if (this.withinBudget(workspaceIds, evict)) return true;
    const alone = this.heldBy(workspaceIds);
    for (const id of workspaceIds) {
      this.drop(id);
      if (alone > this.maxFloats) this.oversizedUntil.set(id, now + OVERSIZED_RETRY_MS);
    }
    return false;
  }

  /**
   * The best `query.limit` hits that Postgres still has live at the version held; the dead are
   * forgotten (the next full read would drop them too), and the next best take their places.
   */
  private async liveBest(query: VectorQuery): Promise<VectorHit[]> {
    const kept: VectorHit[] = [];
    const checked = new Set<string>();
    for (let depth = query.limit + LIVENESS_SLACK; ; depth *= 2) {
      const { ranked, more } = this.score(query, depth);
      const batch = ranked.filter((r) => !checked.has(r.hit.fragmentId));
      const current = new Map(
        (await this.chunks.currentRuns(batch.map(({ hit }) => hit.fragmentId))).map((r) => [r.f, r]),
      );
      for (const { workspaceId, held, hit } of batch) {
        checked.add(hit.fragmentId);
        const now = current.get(hit.fragmentId);
        if (now && Number(now.t) === held.createdMs) {
          // The run held, or the same run under a newer version (tags, type or key changed, not
          // the text): runsSince does not see that one (its created_at is old), so it is
          // moved to the new version here, or it would be dropped as dead.
          held.version = now.v;
          kept.push(hit);
        } else this.forget(workspaceId, hit.fragmentId, held);
      }
      if (kept.length >= query.limit || !more) return kept.sort(byRank).slice(0, query.limit);
    }
  }

  private forget(workspaceId: string, fragmentId: string, held: Held): void {
    const entries = this.workspaces.get(workspaceId);
    if (entries?.get(fragmentId) !== held) return;
    entries.delete(fragmentId);
    this.columns.get(workspaceId)?.get(held.dim)?.remove(fragmentId);
    this.floats -= held.floats;
  }

  private heldBy(workspaceIds: string[]): number {
    let floats = 0;
    for (const id of workspaceIds) for (const entry of this.workspaces.get(id)?.values() ?? []) floats += entry.floats;
    return floats;
  }

  /**
   * The best `depth` held fragments of the query's workspaces over the threshold (more when
   * tied), best first; `more`: others are over the threshold too.
   */
  private score(query: VectorQuery, depth: number): { ranked: RankedHit[]; more: boolean } {
    const unitQuery = unit(Float32Array.from(query.vector));
    if (!unitQuery) return { ranked: [], more: false };
    // Float32 rounding: a cosine that SQL computes as exactly the threshold may land a hair under it here.
    const threshold = query.minSimilarity - THRESHOLD_TOLERANCE;
    // Everything over the threshold in flat lists first (a sentence query passes most fragments);
    // objects only for the best `depth`.
    const similarities: number[] = [];
    const fragmentIds: string[] = [];
    const owners: number[] = [];
    query.workspaceIds.forEach((workspaceId, owner) => {
      this.columns
        .get(workspaceId)
        ?.get(unitQuery.length)
        ?.scan(unitQuery, threshold, (fragmentId, similarity) => {
          similarities.push(similarity);
          fragmentIds.push(fragmentId);
          owners.push(owner);
        });
    });
    const over = similarities.length;
    // The depth-th best similarity by a numeric sort (no comparator): only the hits from it up are ordered.
    const cutoff = over > depth ? Float64Array.from(similarities).sort()[over - depth]! : -Infinity;
    const hits: RankedHit[] = [];
    for (let i = 0; i < over; i++) {
      if (similarities[i]! < cutoff) continue;
      const workspaceId = query.workspaceIds[owners[i]!]!;
      const fragmentId = fragmentIds[i]!;
      const held = this.workspaces.get(workspaceId)!.get(fragmentId)!;
      hits.push({ workspaceId, held, hit: { fragmentId, similarity: similarities[i]! } });
    }
    hits.sort((a, b) => byRank(a.hit, b.hit));
    return { ranked: hits, more: over > hits.length };
  }

  private async loadMissing(live: LiveRun[]): Promise<void> {
    const missing = live.filter((r) => {
      const held = this.workspaces.get(r.workspaceId)?.get(r.fragmentId);
      return !held || held.version !== r.version || held.createdMs !== r.createdMs;
    });
    const workspaceOf = new Map(missing.map((r) => [r.fragmentId, r.workspaceId]));
    for (let i = 0; i < missing.length; i += LOAD_BATCH) {
      const ids = missing.slice(i, i + LOAD_BATCH).map((r) => r.fragmentId);
      const rows = await this.chunks.chunkVectors(ids);
      for (const [fragmentId, chunks] of groupBy(rows, (r) => r.f)) {
        // A zero vector matches nothing (SQL's cosine is NULL for it); a run whose chunks disagree
        // on the dimension (never written so) is left out.
        const vectors = chunks
          .map((c) => unit(decodeFloat4Array(c.e)))
          .filter((v): v is Float32Array => v !== undefined);
        const dim = vectors[0]?.length ?? 0;
        if (dim === 0 || vectors.some((v) => v.length !== dim)) continue;
        const packed = new Float32Array(dim * vectors.length);
        vectors.forEach((v, n) => packed.set(v, n * dim));
        this.hold(
          workspaceOf.get(fragmentId)!,
          fragmentId,
          { version: chunks[0]!.v, createdMs: Number(chunks[0]!.t), dim, floats: packed.length },
          packed,
        );
      }
    }
  }

  /** Drops what the workspaces hold beyond what is live now (archived, deleted, re-embedded). */
  private forgetGone(workspaceIds: string[], live: LiveRun[]): void {
    const current = new Set(live.map((r) => r.fragmentId));
    for (const id of workspaceIds) {
      const held = this.workspaces.get(id);
      if (!held) continue;
      for (const [fragmentId, entry] of held) {
        if (!current.has(fragmentId)) {
          held.delete(fragmentId);
          this.columns.get(id)?.get(entry.dim)?.remove(fragmentId);
          this.floats -= entry.floats;
        }
      }
    }
  }

  /** Evicts least recently searched workspaces (not these) until the budget holds, if `evict`; false if it does not hold. */
  private withinBudget(searched: string[], evict: boolean): boolean {
    const keep = new Set(searched);
    for (const id of keep) {
      // Most recently used: move to the end.
      const held = this.workspaces.get(id);
      if (held) {
        this.workspaces.delete(id);
        this.workspaces.set(id, held);
      }
    }
    for (const id of evict ? [...this.workspaces.keys()] : []) {
      if (this.floats <= this.maxFloats) break;
      if (!keep.has(id)) this.drop(id);
    }
    return this.floats <= this.maxFloats;
  }

  private hold(workspaceId: string, fragmentId: string, entry: Held, vectors: Float32Array): void {
    let held = this.workspaces.get(workspaceId);
    if (!held) this.workspaces.set(workspaceId, (held = new Map()));
    let byDim = this.columns.get(workspaceId);
    if (!byDim) this.columns.set(workspaceId, (byDim = new Map()));
    const previous = held.get(fragmentId);
    if (previous && previous.dim !== entry.dim) byDim.get(previous.dim)?.remove(fragmentId);
    let columns = byDim.get(entry.dim);
    if (!columns) byDim.set(entry.dim, (columns = new VectorColumns(entry.dim)));
    columns.set(fragmentId, vectors);
    this.floats += entry.floats - (previous?.floats ?? 0);
    held.set(fragmentId, entry);
  }

  private drop(workspaceId: string): void {
    const held = this.workspaces.get(workspaceId);
    if (!held) return;
    for (const entry of held.values()) this.floats -= entry.floats;
    this.workspaces.delete(workspaceId);
    this.columns.delete(workspaceId);
    this.synced.delete(workspaceId);
  }
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/** A run is its version and the created_at (ms) of its first chunk. */
function liveRunsOf(rows: LiveRunRow[]): LiveRun[] {
  return rows.map((r) => ({ workspaceId: r.w, fragmentId: r.f, version: r.v, createdMs: Number(r.t) }));
}

/** Best first; ties by fragment id. */
function byRank(a: VectorHit, b: VectorHit): number {
  return b.similarity - a.similarity || (a.fragmentId < b.fragmentId ? -1 : a.fragmentId > b.fragmentId ? 1 : 0);
}

/** How far under the threshold a float32 similarity may fall and still count as reaching it. */
const THRESHOLD_TOLERANCE = 1e-6;
