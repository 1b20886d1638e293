import { DataPrisma } from '@kw/platform-persistence';

const sql = DataPrisma.sql;

/** The optional filters of a search (a saved search's too). */
export interface FragmentFilters {
  types: string[];
  tags: string[];
  collectionId?: string;
}

/**
 * The WHERE conditions every retrieval shares, over `search_read.fragments f`: the authorized
 * workspaces, never archived fragments, and the optional type, tag and collection filters.
 */
export function fragmentConditions(workspaceIds: string[], criteria: FragmentFilters): DataPrisma.Sql {
  return sql`${liveInWorkspaces(workspaceIds)} AND ${filterConditions(criteria)}`;
}

/** The authorized workspaces' live fragments: the population keyword statistics are taken over. */
export function liveInWorkspaces(workspaceIds: string[]): DataPrisma.Sql {
  return sql`f.workspace_id = ANY(${workspaceIds}::uuid[]) AND f.archived_at IS NULL`;
}

/** The optional type, tag and collection filters (TRUE when none is given). */
export function filterConditions(criteria: FragmentFilters): DataPrisma.Sql {
  const parts: DataPrisma.Sql[] = [sql`TRUE`];
  // Type keys are lower-case slugs and tags compare case-insensitively (the tags_folded GIN
  // index), as in the fragment list and the structured listing: `NOTE` and `PG` find them.
  if (criteria.types.length > 0) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM search_read.fragment_types t WHERE t.id = f.fragment_type_id AND t.key = ANY(${criteria.types.map((k) => k.toLowerCase())}::text[]))`,
    );
  }
  if (criteria.tags.length > 0)
    parts.push(sql`f.tags_folded @> ARRAY(SELECT lower(t) FROM unnest(${criteria.tags}::text[]) t)`);
  if (criteria.collectionId) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM search_read.collection_fragments cf WHERE cf.fragment_id = f.id AND cf.collection_id = ${criteria.collectionId}::uuid)`,
    );
  }
  return DataPrisma.join(parts, ' AND ');
}

/** The fragment's stored weighted full-text document (GIN index fragments_search_document_idx). */
export const DOCUMENT = sql`f.search_document`;
