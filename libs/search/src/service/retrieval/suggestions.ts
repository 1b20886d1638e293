import { DataPrisma } from '@kw/platform-persistence';
import type { SearchDb } from '../../persistence/search-database.js';

export interface Suggestion {
  text: string;
  kind: 'title' | 'tag';
  fragmentId: string;
}

/** LIKE pattern matching `prefix` literally at the start. */
function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Titles (whole title or any word of it) and tags of one workspace's live fragments that
 * start with the prefix, tags first then titles, alphabetically.
 */
export async function suggest(db: SearchDb, workspaceId: string, prefix: string, limit: number): Promise<Suggestion[]> {
  const p = prefix.trim();
  if (p === '') return [];
  const pattern = prefixPattern(p);
  const wordPattern = `% ${pattern}`;
  const rows = await db.$queryRaw<{ text: string; kind: 'title' | 'tag'; fragment_id: string }[]>(DataPrisma.sql`
    (SELECT DISTINCT tag AS text, 'tag' AS kind, '' AS fragment_id
       FROM data.fragments f, unnest(f.tags) AS tag
      WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND lower(tag) LIKE ${pattern}
      ORDER BY 1 LIMIT ${limit})
    UNION ALL
    (SELECT f.title AS text, 'title' AS kind, f.id::text AS fragment_id
       FROM data.fragments f
      WHERE f.workspace_id = ${workspaceId}::uuid AND f.archived_at IS NULL AND (lower(f.title) LIKE ${pattern} OR lower(f.title) LIKE ${wordPattern})
      ORDER BY f.title, f.id LIMIT ${limit})`);
  return rows.slice(0, limit).map((r) => ({ text: r.text, kind: r.kind, fragmentId: r.fragment_id }));
}
