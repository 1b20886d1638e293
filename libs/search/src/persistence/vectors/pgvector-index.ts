import type { SearchDb } from '../search-database.js';
import type { VectorHit, VectorIndex, VectorQuery } from '../../service/vector/vector-index.js';

/**
 * pgvector over fragment_chunks.embedding, read directly (cast float4[] -> vector in the
 * query), so the index is never out of sync with the chunks the enrichment worker writes.
 * `schema` is where the extension lives (quoted identifier, found at start-up).
 */
export class PgvectorIndex implements VectorIndex {
  readonly name = 'pgvector' as const;

  constructor(
    private readonly db: SearchDb,
    private readonly schema: string,
  ) {}

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    const s = `"${this.schema.replaceAll('"', '""')}"`;
    // Only chunks of the fragment's current version count; dimension mismatches (a provider
    // change) are skipped rather than failing the cast.
    const rows = await this.db.$queryRawUnsafe<{ fragment_id: string; similarity: number }[]>(
      `SELECT c.fragment_id::text AS fragment_id, max(1 - (c.embedding::${s}.vector OPERATOR(${s}.<=>) $1::${s}.vector))::float8 AS similarity
         FROM search_read.fragment_chunks c
         JOIN search_read.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
        WHERE c.workspace_id = ANY($2::uuid[]) AND cardinality(c.embedding) = $3
        GROUP BY c.fragment_id
       HAVING max(1 - (c.embedding::${s}.vector OPERATOR(${s}.<=>) $1::${s}.vector)) >= $4
        ORDER BY similarity DESC, c.fragment_id
        LIMIT $5`,
      `[${query.vector.join(',')}]`,
      query.workspaceIds,
      query.vector.length,
      query.minSimilarity,
      query.limit,
    );
    return rows.map((r) => ({ fragmentId: r.fragment_id, similarity: Number(r.similarity) }));
  }
}
