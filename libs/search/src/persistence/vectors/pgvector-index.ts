import type { SearchDb } from '../search-database.js';
import type { VectorHit, VectorIndex, VectorQuery } from '../../service/vector/vector-index.js';

/**
 * pgvector over the chunks of search_read.fragment_chunks, read directly, so the index is never
 * out of sync with the chunks the enrichment worker writes. `schema` is where the extension
 * lives (found at start-up). `storedVectors`: the view has `embedding_vector`, the embedding
 * stored as a vector (migration chunk_vectors, where pgvector was there to migrate with);
 * otherwise each float4[] embedding is cast per query, about three times the work.
 */
export class PgvectorIndex implements VectorIndex {
  readonly name = 'pgvector' as const;

  constructor(
    private readonly db: SearchDb,
    private readonly schema: string,
    readonly storedVectors: boolean,
  ) {}

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    const s = `"${this.schema.replaceAll('"', '""')}"`;
    // Only chunks of the fragment's current version count; chunks of another dimension (a
    // provider change) score NULL rather than failing the distance. That test sits in the CASE
    // and not in WHERE: the planner cannot estimate it, guesses 0.5% of the rows, and then sorts
    // the chunks with their embeddings for a GroupAggregate (spilling to disk) instead of
    // hashing; on the embedded database that doubled the query's time.
    // A zero vector has no direction: pgvector's cosine distance is NaN, which Postgres sorts
    // above every number, so it is made NULL (no match), as exact cosine has it.
    const similarity = this.storedVectors
      ? `CASE WHEN ${s}.vector_dims(c.embedding_vector) = $3 THEN nullif(1 - (c.embedding_vector OPERATOR(${s}.<=>) $1::${s}.vector), 'NaN') END`
      : `CASE WHEN cardinality(c.embedding) = $3 THEN nullif(1 - (c.embedding::${s}.vector OPERATOR(${s}.<=>) $1::${s}.vector), 'NaN') END`;
    // Liveness (the chunk is of the fragment's current version, the fragment not archived) is
    // checked for the best candidates only: joining every chunk to the fragments scanned the whole
    // fragments table (wide rows) for a hash, a third of the query's time at 9,000 chunks. The
    // candidates are oversampled; when dead ones ate the oversampling, the exact query decides.
    const candidates = query.limit * 2 + 20;
    const params = [`[${query.vector.join(',')}]`, query.workspaceIds, query.vector.length, query.minSimilarity];
    const rows = await this.db.$queryRawUnsafe<{ fragment_id: string; similarity: number; live: boolean }[]>(
      `WITH best AS (
         SELECT c.fragment_id, c.version, max(${similarity}) AS similarity
           FROM search_read.fragment_chunks c
          WHERE c.workspace_id = ANY($2::uuid[])
          GROUP BY c.fragment_id, c.version
         HAVING max(${similarity}) >= $4
          ORDER BY similarity DESC, c.fragment_id
          LIMIT $5
       )
       SELECT b.fragment_id::text AS fragment_id, b.similarity::float8 AS similarity, f.id IS NOT NULL AS live
         FROM best b
         LEFT JOIN search_read.fragments f
           ON f.id = b.fragment_id AND f.version = b.version AND f.archived_at IS NULL
        ORDER BY b.similarity DESC, b.fragment_id`,
      ...params,
      candidates,
    );
    const live = rows.filter((r) => r.live);
    if (live.length < query.limit && rows.length >= candidates)
      return this.exactNearest(similarity, params, query.limit);
    return live.slice(0, query.limit).map((r) => ({ fragmentId: r.fragment_id, similarity: Number(r.similarity) }));
  }

  /** Every live chunk scored and grouped: the answer when the candidates were mostly dead. */
  private async exactNearest(similarity: string, params: unknown[], limit: number): Promise<VectorHit[]> {
    const rows = await this.db.$queryRawUnsafe<{ fragment_id: string; similarity: number }[]>(
      `SELECT c.fragment_id::text AS fragment_id, max(${similarity})::float8 AS similarity
         FROM search_read.fragment_chunks c
         JOIN search_read.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
        WHERE c.workspace_id = ANY($2::uuid[])
        GROUP BY c.fragment_id
       HAVING max(${similarity}) >= $4
        ORDER BY similarity DESC, c.fragment_id
        LIMIT $5`,
      ...params,
      limit,
    );
    return rows.map((r) => ({ fragmentId: r.fragment_id, similarity: Number(r.similarity) }));
  }
}
