import { createHash } from 'node:crypto';
import type { LiveFragmentCheck } from '../../persistence/vectors/chunk-vectors.repository.js';
import type { IndexedChunk, VectorHit, VectorIndex, VectorIndexSync, VectorQuery } from './vector-index.js';

/**
 * The Qdrant collections holding one point per fragment chunk: `<prefix>_<dimension>`, one per
 * embedding dimension (a change of AI provider starts a new collection instead of failing).
 */
export const QDRANT_COLLECTION_PREFIX = 'kw_fragment_chunks';

const REQUEST_TIMEOUT_MS = 30_000;

interface QdrantPayload {
  workspace_id?: string;
  fragment_id?: string;
  chunk_index?: number;
  version?: number;
}

interface QdrantScoredPoint {
  score: number;
  payload?: QdrantPayload;
}

/**
 * The point id of a chunk: a UUID derived from (fragment id, chunk index), so re-syncing a
 * fragment overwrites its points instead of adding new ones.
 */
export function chunkPointId(fragmentId: string, chunkIndex: number): string {
  const hex = createHash('sha1').update(`${fragmentId}:${chunkIndex}`).digest('hex');
  // RFC 4122 layout, version 5 (name-based, SHA-1), variant 10.
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Qdrant over its REST API (no client library). Reads: workspace isolation by a payload filter
 * on every query, then a check in Postgres drops archived or deleted fragments and chunks of an
 * older version (what pgvector's join does). Writes (`VectorIndexSync`): the search component's
 * sync worker calls them from the `fragment.embedded` / `fragment.deleted` events and its
 * start-up backfill (vector-sync.ts).
 */
export class QdrantIndex implements VectorIndex, VectorIndexSync {
  readonly name = 'qdrant' as const;
  readonly external = true;
  /** Collections known to exist (created or seen). */
  private readonly ready = new Set<string>();

  constructor(
    private readonly baseUrl: string,
    private readonly live: LiveFragmentCheck,
    private readonly prefix = QDRANT_COLLECTION_PREFIX,
  ) {}

  collectionFor(dimension: number): string {
    return `${this.prefix}_${dimension}`;
  }

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    const collection = this.collectionFor(query.vector.length);
    const body = {
      vector: query.vector,
      // Several chunks of one fragment may match: over-fetch, then keep each fragment's best.
      limit: query.limit * 4,
      score_threshold: query.minSimilarity,
      with_payload: ['fragment_id', 'version'],
      filter: { must: [{ key: 'workspace_id', match: { any: query.workspaceIds } }] },
    };
    const found = await this.request<{ result: QdrantScoredPoint[] }>(
      'POST',
      `/collections/${collection}/points/search`,
      body,
      { missingOk: true },
    );
    // Nothing embedded in this dimension yet.
    if (!found) return [];
    const best = new Map<string, { similarity: number }>();
    for (const point of found.result) {
      const id = point.payload?.fragment_id;
      if (id && !best.has(id)) best.set(id, { similarity: point.score });
    }
    if (best.size === 0) return [];
    // Live: not archived, and its chunks in Postgres are of its current version (a text change
    // not re-embedded yet leaves stale points here until the sync replaces them).
    const current = new Set(await this.live.liveFragmentIds([...best.keys()], query.workspaceIds));
    return [...best]
      .filter(([id]) => current.has(id))
      .slice(0, query.limit)
      .map(([fragmentId, hit]) => ({ fragmentId, similarity: hit.similarity }));
  }

  /** Creates the collection of this dimension (cosine distance, payload indexes) when missing. */
  async ensureCollection(dimension: number): Promise<string> {
    const collection = this.collectionFor(dimension);
    if (this.ready.has(collection)) return collection;
    const existing = await this.request('GET', `/collections/${collection}`, undefined, { missingOk: true });
    if (!existing) {
      try {
        await this.request('PUT', `/collections/${collection}`, { vectors: { size: dimension, distance: 'Cosine' } });
      } catch (err) {
        // Another replica created it meanwhile.
        if (!(await this.request('GET', `/collections/${collection}`, undefined, { missingOk: true }))) throw err;
      }
      for (const [field, schema] of [
        ['workspace_id', 'keyword'],
        ['fragment_id', 'keyword'],
        ['chunk_index', 'integer'],
      ] as const) {
        await this.request('PUT', `/collections/${collection}/index?wait=true`, {
          field_name: field,
          field_schema: schema,
        });
      }
    }
    this.ready.add(collection);
    return collection;
  }

  /**
   * Upserts one point per chunk (deterministic ids), then deletes the fragment's points beyond
   * the new chunk count and in the collections of other dimensions: at no moment is the
   * fragment missing from the index, and running it twice changes nothing.
   */
  async upsertFragment(
    workspaceId: string,
    fragmentId: string,
    version: number,
    chunks: IndexedChunk[],
  ): Promise<void> {
    const dimension = chunks[0]?.vector.length;
    const usable = chunks.filter((c) => c.vector.length === dimension);
    let target: string | undefined;
    if (dimension && usable.length > 0) {
      target = await this.ensureCollection(dimension);
      await this.request('PUT', `/collections/${target}/points?wait=true`, {
        points: usable.map((c) => ({
          id: chunkPointId(fragmentId, c.chunkIndex),
          vector: c.vector,
          payload: { workspace_id: workspaceId, fragment_id: fragmentId, chunk_index: c.chunkIndex, version },
        })),
      });
      const kept = usable.map((c) => c.chunkIndex);
      await this.request('POST', `/collections/${target}/points/delete?wait=true`, {
        filter: {
          must: [{ key: 'fragment_id', match: { value: fragmentId } }],
          must_not: [{ key: 'chunk_index', match: { any: kept } }],
        },
      });
    }
    for (const collection of await this.collections()) {
      if (collection !== target) await this.deleteIn(collection, fragmentId);
    }
  }

  async deleteFragment(fragmentId: string): Promise<void> {
    for (const collection of await this.collections()) await this.deleteIn(collection, fragmentId);
  }

  async deleteWorkspace(workspaceId: string): Promise<void> {
    for (const collection of await this.collections())
      await this.request(
        'POST',
        `/collections/${collection}/points/delete?wait=true`,
        { filter: { must: [{ key: 'workspace_id', match: { value: workspaceId } }] } },
        { missingOk: true },
      );
  }

  async isEmpty(): Promise<boolean> {
    return (await this.collections()).length === 0;
  }

  /** The collections of this index (every dimension). */
  async collections(): Promise<string[]> {
    const { result } = await this.request<{ result: { collections: Array<{ name: string }> } }>(
      'GET',
      '/collections',
      undefined,
    );
    return result.collections
      .map((c) => c.name)
      .filter((name) => name.startsWith(`${this.prefix}_`) && /^\d+$/.test(name.slice(this.prefix.length + 1)));
  }

  private async deleteIn(collection: string, fragmentId: string): Promise<void> {
    await this.request(
      'POST',
      `/collections/${collection}/points/delete?wait=true`,
      { filter: { must: [{ key: 'fragment_id', match: { value: fragmentId } }] } },
      { missingOk: true },
    );
  }

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}${path}`;
  }

  /** A JSON request; with `missingOk`, a 404 answers undefined instead of throwing. */
  private async request<T>(method: string, path: string, body: unknown): Promise<T>;
  private async request<T>(
    method: string,
    path: string,
    body: unknown,
    options: { missingOk: true },
  ): Promise<T | undefined>;
  private async request<T>(
    method: string,
    path: string,
    body: unknown,
    options: { missingOk?: boolean } = {},
  ): Promise<T | undefined> {
    const response = await fetch(this.url(path), {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.status === 404 && options.missingOk) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    if (!response.ok)
      throw new Error(`Qdrant ${method} ${path} failed: ${response.status} ${await response.text().catch(() => '')}`);
    return (await response.json()) as T;
  }
}
