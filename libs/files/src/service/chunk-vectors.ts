import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { decodeFloat4Array, unit } from '@kw/platform-ranking';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ChunkVectorsRepository, type ChunkVectorRow } from '../persistence/chunk-vectors.repository.js';

/** A file's chunk nearest to a query. */
export interface ChunkMatch {
  fileId: string;
  ordinal: number;
  similarity: number;
}

/** One workspace's chunk vectors: unit length, packed one after the other. */
interface HeldWorkspace {
  key: string;
  dimension: number;
  fileIds: string[];
  ordinals: Int32Array;
  vectors: Float32Array;
}

/** The dimension assumed before a workspace's vectors were ever read (the built-in provider's). */
const ASSUMED_DIMENSION = 384;
/** How far under the threshold a float32 similarity may fall and still count as reaching it. */
const THRESHOLD_TOLERANCE = 1e-6;

/**
 * The chunk vectors of the workspaces this process searched, to rank files by meaning: exact
 * cosine over every chunk of the workspace's ready files (a file scores by its best chunk), in
 * memory, because cosine in SQL costs about 0.1 ms per chunk and query. A workspace is read
 * once and again only when its files changed (ChunkVectorsRepository.version, one small query
 * per search), so a file is findable by meaning as soon as it is ready. Held within
 * FILES_VECTOR_MEMORY_MB, the least recently searched workspace dropped first; one larger than
 * the budget is not held and answers undefined (ranked by its words only).
 */
@Injectable()
export class ChunkVectors {
  private readonly held = new Map<string, HeldWorkspace>(); // insertion order: least recently used first
  private readonly loading = new Map<string, Promise<HeldWorkspace>>();
  private heldBytes = 0;
  private readonly budgetBytes: number;

  constructor(
    private readonly repository: ChunkVectorsRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'FILES_VECTOR_MEMORY_MB'>,
  ) {
    this.budgetBytes = config.FILES_VECTOR_MEMORY_MB * 1024 * 1024;
  }

  /**
   * Each file's chunk nearest to `query` with at least `minSimilarity`, best first (ties by file
   * id), at most `limit`; undefined when the workspace's vectors are over the budget.
   */
  async nearest(
    workspaceId: string,
    query: number[],
    { limit, minSimilarity }: { limit: number; minSimilarity: number },
  ): Promise<ChunkMatch[] | undefined> {
    const workspace = await this.workspace(workspaceId);
    if (!workspace) return undefined;
    const q = unit(Float32Array.from(query));
    if (!q || q.length !== workspace.dimension) return [];
    const best = new Map<string, ChunkMatch>();
    const { dimension, vectors, fileIds, ordinals } = workspace;
    for (let chunk = 0; chunk < fileIds.length; chunk++) {
      let dot = 0;
      const base = chunk * dimension;
      for (let i = 0; i < dimension; i++) dot += vectors[base + i]! * q[i]!;
      if (dot < minSimilarity - THRESHOLD_TOLERANCE) continue;
      const fileId = fileIds[chunk]!;
      const known = best.get(fileId);
      if (!known || dot > known.similarity) best.set(fileId, { fileId, ordinal: ordinals[chunk]!, similarity: dot });
    }
    return [...best.values()]
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
    if (chunks * (current?.dimension ?? ASSUMED_DIMENSION) * 4 > this.budgetBytes) {
      this.forget(workspaceId);
      return undefined;
    }
    // Searches of one workspace arriving together read it once.
    const loadKey = `${workspaceId}:${key}`;
    let load = this.loading.get(loadKey);
    if (!load) {
      load = this.repository
        .vectors(workspaceId)
        .then((rows) => pack(key, rows))
        .finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, load);
    }
    const loaded = await load;
    if (loaded.vectors.byteLength > this.budgetBytes) return undefined;
    if (this.held.get(workspaceId) !== loaded) {
      this.forget(workspaceId);
      this.held.set(workspaceId, loaded);
      this.heldBytes += loaded.vectors.byteLength;
      for (const id of [...this.held.keys()]) {
        if (this.heldBytes <= this.budgetBytes || id === workspaceId) break;
        this.forget(id);
      }
    }
    return loaded;
  }

  private forget(workspaceId: string): void {
    const held = this.held.get(workspaceId);
    if (!held) return;
    this.held.delete(workspaceId);
    this.heldBytes -= held.vectors.byteLength;
  }
}

/**
 * The rows as one packed array of unit vectors. Chunks embedded with another dimension (a model
 * changed and the file not processed again) are left out: they cannot be compared with the
 * query. The dimension kept is that of most chunks.
 */
function pack(key: string, rows: ChunkVectorRow[]): HeldWorkspace {
  const decoded = rows.map((r) => ({ fileId: r.f, ordinal: r.o, vector: unit(decodeFloat4Array(r.e)) }));
  const counts = new Map<number, number>();
  for (const { vector } of decoded) if (vector) counts.set(vector.length, (counts.get(vector.length) ?? 0) + 1);
  const dimension = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
  const kept = decoded.filter((d) => d.vector?.length === dimension);
  const vectors = new Float32Array(kept.length * dimension);
  kept.forEach((d, i) => vectors.set(d.vector!, i * dimension));
  return {
    key,
    dimension,
    fileIds: kept.map((d) => d.fileId),
    ordinals: Int32Array.from(kept, (d) => d.ordinal),
    vectors,
  };
}
