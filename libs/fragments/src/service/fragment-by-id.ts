import type pg from 'pg';
import type { FragmentRow } from './fragments-db.js';

/**
 * Reads one fragment by id with a plain `pg` statement instead of Prisma: the busiest read
 * of the platform (every GET, update, archive and delete starts with it), and under load
 * Prisma's query compiler and runtime were half of the fragments process's CPU for it.
 * The columns are exactly FragmentRow's, under the same names and types (uuid and text as
 * strings, text[] as arrays, jsonb parsed, timestamptz as Date), so callers cannot tell.
 * Never call inside a Prisma transaction: in embedded mode the pool has one connection.
 * Unnamed: the embedded PGlite serves every socket from one session, so a named statement
 * outlives the pool client that prepared it ("prepared statement already exists").
 */
const FRAGMENT_BY_ID: Pick<pg.QueryConfig, 'text'> = {
  text: `SELECT id, workspace_id AS "workspaceId", fragment_type_id AS "fragmentTypeId", title, content, summary,
                summary_source AS "summarySource", tags, enhance_tags AS "enhanceTags", key, status,
                created_via AS "createdVia", version, enrichment, created_by AS "createdBy", updated_by AS "updatedBy",
                created_at AS "createdAt", updated_at AS "updatedAt", archived_at AS "archivedAt"
           FROM data.fragments WHERE id = $1`,
};

export async function fragmentById(pool: pg.Pool, id: string): Promise<FragmentRow | null> {
  const { rows } = await pool.query<FragmentRow>({ ...FRAGMENT_BY_ID, values: [id] });
  return rows[0] ?? null;
}
