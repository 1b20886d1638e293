import type { SearchDb } from '../service/search-db.js';
import type { VectorHit, VectorIndex, VectorQuery } from './vector-index.js';

/** The Qdrant collection holding one point per fragment chunk (payload: workspace_id, fragment_id). */
export const QDRANT_COLLECTION = 'kw_fragment_chunks';

export interface QdrantChunkPoint {
  id: string;
  vector: number[];
  workspaceId: string;
  fragmentId: string;
}

interface QdrantScoredPoint {
  score: number;
  payload?: { fragment_id?: string };
}

/**
 * Qdrant over its REST API (no client library): workspace isolation by a payload filter on
 * every query, and archived fragments dropped by a check in Postgres. Keeping the collection
 * in sync with fragment_chunks (upsertChunks/deleteFragment from the outbox events) is not
 * wired yet: see docs/search.md.
 */
export class QdrantIndex implements VectorIndex {
  readonly name = 'qdrant' as const;

  constructor(
    private readonly baseUrl: string,
    private readonly db: SearchDb,
    private readonly collection = QDRANT_COLLECTION,
  ) {}

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    const body = {
      vector: query.vector,
      // Several chunks of one fragment may match: over-fetch, then keep each fragment's best.
      limit: query.limit * 4,
      score_threshold: query.minSimilarity,
      with_payload: ['fragment_id'],
      filter: { must: [{ key: 'workspace_id', match: { any: query.workspaceIds } }] },
    };
    const { result } = await this.request<{ result: QdrantScoredPoint[] }>('POST', `/collections/${this.collection}/points/search`, body);
    const best = new Map<string, number>();
    for (const point of result) {
      const id = point.payload?.fragment_id;
      if (id && !best.has(id)) best.set(id, point.score);
    }
    const live = await this.db.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id::text AS id FROM data.fragments WHERE id = ANY($1::uuid[]) AND workspace_id = ANY($2::uuid[]) AND archived_at IS NULL`,
      [...best.keys()],
      query.workspaceIds,
    );
    const liveIds = new Set(live.map((r) => r.id));
    return [...best].filter(([id]) => liveIds.has(id)).slice(0, query.limit).map(([fragmentId, similarity]) => ({ fragmentId, similarity }));
  }

  /** Creates the collection (cosine distance) when missing. */
  async ensureCollection(dimension: number): Promise<void> {
    const exists = await fetch(this.url(`/collections/${this.collection}`));
    if (exists.ok) return;
    await this.request('PUT', `/collections/${this.collection}`, { vectors: { size: dimension, distance: 'Cosine' } });
    await this.request('PUT', `/collections/${this.collection}/index`, { field_name: 'workspace_id', field_schema: 'keyword' });
  }

  async upsertChunks(points: QdrantChunkPoint[]): Promise<void> {
    if (points.length === 0) return;
    await this.request('PUT', `/collections/${this.collection}/points?wait=true`, {
      points: points.map((p) => ({ id: p.id, vector: p.vector, payload: { workspace_id: p.workspaceId, fragment_id: p.fragmentId } })),
    });
  }

  async deleteFragment(fragmentId: string): Promise<void> {
    await this.request('POST', `/collections/${this.collection}/points/delete?wait=true`, { filter: { must: [{ key: 'fragment_id', match: { value: fragmentId } }] } });
  }

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}${path}`;
  }

  private async request<T>(method: string, path: string, body: unknown): Promise<T> {
    const response = await fetch(this.url(path), { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`Qdrant ${method} ${path} failed: ${response.status} ${await response.text().catch(() => '')}`);
    return (await response.json()) as T;
  }
}
