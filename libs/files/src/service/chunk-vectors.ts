import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { decodeFloat4Array, unit } from '@kw/platform-ranking';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ChunkVectorsRepository } from '../persistence/chunk-vectors.repository.js';

/** A file's chunk nearest to a query. */
export interface ChunkMatch {
  fileId: string;
  ordinal: number;
  similarity: number;
}

/** One file's chunk vectors (unit length, packed one after the other) as of its processing. */
interface HeldFile {
  processed: number;
  dimension: number;
  ordinals: Int32Array;
  vectors: Float32Array;
}

interface HeldWorkspace {
  key: string;
  files: Map<string, HeldFile>;
  chunks: number;
  bytes: number;
}

/** The dimension assumed before a workspace's vectors were ever read (the built-in provider's). */
const ASSUMED_DIMENSION = 384;
/** How far under the threshold a float32 similarity may fall and still count as reaching it. */
const THRESHOLD_TOLERANCE = 1e-6;

/**
 * The chunk vectors of the workspaces this process searched, to rank files by meaning: exact
 * cosine over every chunk of the workspace's ready files (a file scores by its best chunk), in
 * memory, because cosine in SQL costs about 0.1 ms per chunk and query. Each search compares
 * the workspace's files with what is held (ChunkVectorsRepository.version, one small query);
 * when they changed, only the files processed since, or gone, are read or dropped, so a file is
 * findable by meaning as soon as it is ready, and an upload does not make the next search read
 * the whole workspace again. Held within FILES_VECTOR_MEMORY_MB, the least recently searched
 * workspace dropped first; one larger than the budget is not held and answers undefined (ranked
 * by its words only).
 */
@Injectable()
export class ChunkVectors {
  private readonly held = new Map<string, HeldWorkspace>(); // insertion order: least recently used first
  private readonly refreshing = new Map<string, Promise<HeldWorkspace>>();
  /** Bytes per chunk last seen in each workspace (the model's dimension), to tell one over the budget before reading it. */
  private readonly chunkBytes = new Map<string, number>();
  private heldBytes = 0;
  private readonly budgetBytes: number;

  constructor(
    private readonly repository: ChunkVectorsRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'FILES_VECTOR_MEMORY_MB'>,
  ) {
    this.budgetBytes = config.FILES_VECTOR_MEMORY_MB * 1024 * 1024;
  }

  /**
   * Each file's chunk nearest to the query's vector with at least `minSimilarity`, best first
   * (ties by file id), at most `limit`; chunks of another dimension than the query's (another
   * model) are not compared. `embedQuery` is called only when the workspace has chunks to compare
   * (a hosted model's call is not spent on a workspace without files). Undefined when the
   * workspace's vectors are over the budget.
   */
  async nearest(
    workspaceId: string,
    embedQuery: () => Promise<number[] | undefined>,
    { limit, minSimilarity }: { limit: number; minSimilarity: number },
  ): Promise<ChunkMatch[] | undefined> {
    const workspace = await this.workspace(workspaceId);
    if (!workspace) return undefined;
    if (workspace.chunks === 0) return [];
    const query = await embedQuery();
    const q = query && unit(Float32Array.from(query));
    if (!q) return [];
    const dimension = q.length;
    const found: ChunkMatch[] = [];
    for (const [fileId, file] of workspace.files) {
      if (file.dimension !== dimension) continue;
      let best = -Infinity;
      let bestOrdinal = -1;
      for (let chunk = 0; chunk < file.ordinals.length; chunk++) {
        let dot = 0;
        const base = chunk * dimension;
        for (let i = 0; i < dimension; i++) dot += file.vectors[base + i]! * q[i]!;
        if (dot > best) {
          best = dot;
          bestOrdinal = file.ordinals[chunk]!;
        }
      }
      if (best >= minSimilarity - THRESHOLD_TOLERANCE) found.push({ fileId, ordinal: bestOrdinal, similarity: best });
    }
    return found
      .sort((a, b) => b.similarity - a.similarity || (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0))
      .slice(0, limit);
  }

  private async workspace(workspaceId: string): Promise<HeldWorkspace | undefined> {
    const { key, chunks } = await this.repository.version(workspaceId);
    const current = this.held.get(workspaceId);
    if (current?.key === key) {
      this.held.delete(workspaceId); // most recently used: to the end
      this.held.set(workspaceId, current);
      return current;
    }
    if (chunks * (this.chunkBytes.get(workspaceId) ?? ASSUMED_DIMENSION * 4) > this.budgetBytes) {
      this.forget(workspaceId);
      return undefined;
    }
    // Searches of one workspace arriving together bring it up to date once.
    const refreshKey = `${workspaceId}:${key}`;
    let refresh = this.refreshing.get(refreshKey);
    if (!refresh) {
      refresh = this.refreshed(workspaceId, key, current).finally(() => this.refreshing.delete(refreshKey));
      this.refreshing.set(refreshKey, refresh);
    }
    const updated = await refresh;
    if (this.chunkBytes.size >= 10_000) this.chunkBytes.clear(); // a bound: it is only a first guess
    if (updated.chunks > 0) this.chunkBytes.set(workspaceId, updated.bytes / updated.chunks);
    this.forget(workspaceId);
    if (updated.bytes > this.budgetBytes) return undefined;
    this.held.set(workspaceId, updated);
    this.heldBytes += updated.bytes;
    for (const id of [...this.held.keys()]) {
      if (this.heldBytes <= this.budgetBytes || id === workspaceId) break;
      this.forget(id);
    }
    return updated;
  }

  /** What is held of the workspace, brought up to its ready files: only the changed ones are read. */
  private async refreshed(
    workspaceId: string,
    key: string,
    current: HeldWorkspace | undefined,
  ): Promise<HeldWorkspace> {
    const ready = await this.repository.readyFiles(workspaceId);
    const files = new Map<string, HeldFile>();
    const stale: string[] = [];
    for (const { f, p } of ready) {
      const held = current?.files.get(f);
      if (held && held.processed === p) files.set(f, held);
      else stale.push(f);
    }
    const processedOf = new Map(ready.map((r) => [r.f, r.p]));
    const rows = stale.length > 0 ? await this.repository.vectors(workspaceId, stale) : [];
    for (let start = 0; start < rows.length;) {
      let end = start;
      while (end < rows.length && rows[end]!.f === rows[start]!.f) end++;
      const fileId = rows[start]!.f;
      const vectors = rows.slice(start, end).map((r) => ({ ordinal: r.o, vector: unit(decodeFloat4Array(r.e)) }));
      files.set(fileId, pack(processedOf.get(fileId) ?? 0, vectors));
      start = end;
    }
    // A ready file without text (an image) is held empty: it is not asked for again.
    for (const fileId of stale) if (!files.has(fileId)) files.set(fileId, pack(processedOf.get(fileId) ?? 0, []));
    let bytes = 0;
    let chunks = 0;
    for (const file of files.values()) {
      bytes += file.vectors.byteLength;
      chunks += file.ordinals.length;
    }
    return { key, files, chunks, bytes };
  }

  private forget(workspaceId: string): void {
    const held = this.held.get(workspaceId);
    if (!held) return;
    this.held.delete(workspaceId);
    this.heldBytes -= held.bytes;
  }
}

/**
 * A file's chunks as one packed array of unit vectors. A chunk of another dimension than the
 * file's first (never within one processing run) or without a vector is left out.
 */
function pack(processed: number, chunks: Array<{ ordinal: number; vector: Float32Array | undefined }>): HeldFile {
  const dimension = chunks.find((c) => c.vector)?.vector!.length ?? 0;
  const kept = chunks.filter((c) => c.vector?.length === dimension);
  const vectors = new Float32Array(kept.length * dimension);
  kept.forEach((c, i) => vectors.set(c.vector!, i * dimension));
  return { processed, dimension, ordinals: Int32Array.from(kept, (c) => c.ordinal), vectors };
}
