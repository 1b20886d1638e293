import type { ChunkVectorSource } from '../../persistence/vectors/chunk-vectors.repository.js';
import type { VectorHit, VectorIndex, VectorQuery } from './vector-index.js';

/** One fragment's current embedding run, held in memory: unit-length chunk vectors back to back. */
interface Held {
  /** `<version>:<created_at ms>` of the run (one run writes all chunks of a fragment at once). */
  run: string;
  dim: number;
  vectors: Float32Array;
}

/** A live, embedded fragment as Postgres has it now (from its first chunk). */
interface LiveRun {
  workspaceId: string;
  fragmentId: string;
  run: string;
}

/** Fragment ids per load statement. */
const LOAD_BATCH = 500;
/** How long a workspace too big for the memory budget is left to the fallback before it is tried again. */
const OVERSIZED_RETRY_MS = 10 * 60_000;

/**
 * Vector search in the search process's memory, for PostgreSQL without pgvector (where the
 * fallback, exact cosine in SQL, costs ~0.1 ms per chunk and query). Postgres stays the truth
 * and nothing has to feed this index: each query first reads which fragments of the workspaces
 * are live and embedded, and by which embedding run (a small read of the first chunk of each,
 * joined with the fragment so archived or re-written fragments drop out), loads the vectors of
 * runs it does not hold yet (binary `array_send`, so parsing stays cheap), and scores in
 * memory. So a search sees every commit before it, whoever wrote it, on every replica, with no
 * events and no warm-up other than the first query of a workspace.
 *
 * Memory is bounded (`maxFloats`, ~4 bytes each): least recently searched workspaces are
 * dropped first, and a workspace that alone exceeds the budget is searched by `fallback`.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly name = 'memory' as const;
  /** Per workspace, per fragment; Map order is recency of use (oldest first). */
  private readonly workspaces = new Map<string, Map<string, Held>>();
  private readonly oversizedUntil = new Map<string, number>();
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
    const live = await this.refresh(query.workspaceIds, now);
    return live ? this.score(query, live) : this.fallback.nearest(query);
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
    const done = this.refresh([workspaceId], Date.now(), false).then((live) => live !== undefined);
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.loading.set(workspaceId, settled);
    void settled.then(() => this.loading.delete(workspaceId));
    return done;
  }

  /**
   * Brings these workspaces in line with Postgres; undefined when they do not fit the budget.
   * `evict`: make room by dropping least recently searched workspaces (a query does; the
   * warm-up does not). Workspaces that exceed the budget on their own go to the fallback.
   */
  private async refresh(workspaceIds: string[], now: number, evict = true): Promise<LiveRun[] | undefined> {
    const live = await this.liveRuns(workspaceIds);
    await this.loadMissing(live);
    this.forgetGone(workspaceIds, live);
    if (this.withinBudget(workspaceIds, evict)) return live;
    const alone = this.heldBy(workspaceIds);
    for (const id of workspaceIds) {
      this.drop(id);
      if (alone > this.maxFloats) this.oversizedUntil.set(id, now + OVERSIZED_RETRY_MS);
    }
    return undefined;
  }

  private heldBy(workspaceIds: string[]): number {
    let floats = 0;
    for (const id of workspaceIds)
      for (const entry of this.workspaces.get(id)?.values() ?? []) floats += entry.vectors.length;
    return floats;
  }

  private score(query: VectorQuery, live: LiveRun[]): VectorHit[] {
    const q = unit(Float32Array.from(query.vector));
    if (!q) return [];
    const dim = q.length;
    const hits: VectorHit[] = [];
    for (const { workspaceId, fragmentId, run } of live) {
      const held = this.workspaces.get(workspaceId)?.get(fragmentId);
      if (!held || held.run !== run || held.dim !== dim) continue;
      const v = held.vectors;
      let best = -Infinity;
      for (let base = 0; base < v.length; base += dim) {
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += v[base + i]! * q[i]!;
        if (dot > best) best = dot;
      }
      // Float32 rounding: a cosine that SQL computes as exactly the threshold may land a hair under it here.
      if (best >= query.minSimilarity - THRESHOLD_TOLERANCE) hits.push({ fragmentId, similarity: best });
    }
    hits.sort(
      (a, b) => b.similarity - a.similarity || (a.fragmentId < b.fragmentId ? -1 : a.fragmentId > b.fragmentId ? 1 : 0),
    );
    return hits.slice(0, query.limit);
  }

  /** The current embedding run of every live fragment with chunks in these workspaces. */
  private async liveRuns(workspaceIds: string[]): Promise<LiveRun[]> {
    const rows = await this.chunks.liveRuns(workspaceIds);
    return rows.map((r) => ({ workspaceId: r.w, fragmentId: r.f, run: `${r.v}:${Number(r.t)}` }));
  }

  private async loadMissing(live: LiveRun[]): Promise<void> {
    const missing = live.filter((r) => this.workspaces.get(r.workspaceId)?.get(r.fragmentId)?.run !== r.run);
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
        this.hold(workspaceOf.get(fragmentId)!, fragmentId, {
          run: `${chunks[0]!.v}:${Number(chunks[0]!.t)}`,
          dim,
          vectors: packed,
        });
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
          this.floats -= entry.vectors.length;
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

  private hold(workspaceId: string, fragmentId: string, entry: Held): void {
    let held = this.workspaces.get(workspaceId);
    if (!held) this.workspaces.set(workspaceId, (held = new Map()));
    this.floats += entry.vectors.length - (held.get(fragmentId)?.vectors.length ?? 0);
    held.set(fragmentId, entry);
  }

  private drop(workspaceId: string): void {
    const held = this.workspaces.get(workspaceId);
    if (!held) return;
    for (const entry of held.values()) this.floats -= entry.vectors.length;
    this.workspaces.delete(workspaceId);
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

/** How far under the threshold a float32 similarity may fall and still count as reaching it. */
const THRESHOLD_TOLERANCE = 1e-6;

/** Scaled to unit length (cosine becomes a dot product); undefined for an empty or zero vector. */
export function unit(vector: Float32Array | undefined): Float32Array | undefined {
  if (!vector || vector.length === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/**
 * A one-dimensional float4[] in PostgreSQL's binary array format (`array_send`): ndim,
 * has-nulls flag and element type, then per dimension its length and lower bound, then each
 * element as a 4-byte length (-1 for NULL, read as 0) and a big-endian float4.
 */
export function decodeFloat4Array(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float32Array(0);
  if (ndim !== 1) throw new Error(`expected a one-dimensional float4[], got ${ndim} dimensions`);
  const length = view.getInt32(12);
  const out = new Float32Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    const size = view.getInt32(offset);
    offset += 4;
    if (size === -1) continue;
    out[i] = view.getFloat32(offset);
    offset += size;
  }
  return out;
}
