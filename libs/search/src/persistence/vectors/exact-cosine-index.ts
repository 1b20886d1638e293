import type { SearchDb } from '../search-database.js';
import type { VectorHit, VectorIndex, VectorQuery } from '../../service/vector/vector-index.js';

/**
 * The fallback when neither pgvector nor Qdrant is available: exact cosine similarity
 * computed in SQL over the float4[] embeddings of the workspace's chunks (a full scan of
 * those chunks: fine for small and medium workspaces, see the benchmark in docs/search.md).
 */
export class ExactCosineIndex implements VectorIndex {
  readonly name = 'exact' as const;

  constructor(private readonly db: SearchDb) {}

  async nearest(query: VectorQuery): Promise<VectorHit[]> {
    const rows = await this.db.$queryRawUnsafe<{ fragment_id: string; similarity: number }[]>(
      `WITH scored AS (
         SELECT c.fragment_id,
                (SELECT sum(x * y) / nullif(sqrt(sum(x * x)) * sqrt(sum(y * y)), 0)
                   FROM unnest(c.embedding, $1::float4[]) AS v(x, y))::float8 AS similarity
           FROM search_read.fragment_chunks c
           JOIN search_read.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
          WHERE c.workspace_id = ANY($2::uuid[]) AND cardinality(c.embedding) = $3
       )
       SELECT fragment_id::text AS fragment_id, max(similarity) AS similarity
         FROM scored
        GROUP BY fragment_id
       HAVING max(similarity) >= $4
        ORDER BY similarity DESC, fragment_id
        LIMIT $5`,
      `{${query.vector.join(',')}}`,
      query.workspaceIds,
      query.vector.length,
      query.minSimilarity,
      query.limit,
    );
    return rows.map((r) => ({ fragmentId: r.fragment_id, similarity: Number(r.similarity) }));
  }
}
