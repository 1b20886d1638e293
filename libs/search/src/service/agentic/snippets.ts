import type { SearchDb } from '../../persistence/search-database.js';
import { AGENTIC_SNIPPET_CHARS } from './agentic-limits.js';

/** A short excerpt per fragment: its summary, else the start of its content (leads carry no more). */
export async function snippetsOf(
  db: SearchDb,
  workspaceId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.$queryRaw<Array<{ id: string; snippet: string }>>`
    SELECT id::text AS id, left(regexp_replace(coalesce(nullif(summary, ''), content), '\\s+', ' ', 'g'), ${AGENTIC_SNIPPET_CHARS + 1}) AS snippet
    FROM data.fragments WHERE workspace_id = ${workspaceId}::uuid AND archived_at IS NULL AND id = ANY(${[...ids]}::uuid[])`;
  return new Map(
    rows.map((r) => [
      r.id,
      r.snippet.length > AGENTIC_SNIPPET_CHARS
        ? `${r.snippet.slice(0, AGENTIC_SNIPPET_CHARS - 1).trimEnd()}…`
        : r.snippet.trim(),
    ]),
  );
}
