import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { RequestContext } from '@kw/platform-context';
import { fragmentEvent, type EnrichmentStep } from './fragment-events.js';
import type { FragmentRow } from './fragments-db.js';

/** What a create decides; the rest of the row (id, status, version, times) is a new fragment's. */
export type NewFragment = Pick<
  FragmentRow,
  | 'workspaceId'
  | 'fragmentTypeId'
  | 'title'
  | 'content'
  | 'summary'
  | 'summarySource'
  | 'tags'
  | 'enhanceTags'
  | 'key'
  | 'createdVia'
  | 'enrichment'
  | 'createdBy'
  | 'updatedBy'
>;

// Unnamed, like fragment-by-id.ts: a named statement outlives its pool client in the embedded
// PGlite (one session for every socket).
const INSERT_FRAGMENT: Pick<pg.QueryConfig, 'text'> = {
  text: `WITH created AS (
           INSERT INTO data.fragments (id, workspace_id, fragment_type_id, title, content, summary, summary_source, tags, enhance_tags, key,
                                       status, created_via, version, enrichment, created_by, updated_by, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
           RETURNING id
         )
         INSERT INTO data.outbox (aggregate_type, aggregate_id, event_type, payload, headers)
         SELECT $18, id, $19, $20, $21 FROM created`,
};

/**
 * Inserts a fragment and its `fragment.created` outbox row in one statement (atomic without a
 * transaction, one round trip) with a `pg` statement. A create through Prisma was an
 * interactive transaction of four round trips, each back through the event loop, plus the
 * query compiler: connections sat "idle in transaction" while the process was busy. The row
 * is built here (id and times from this process's clock, at millisecond precision like the
 * column), so the event's snapshot is known before the write.
 * A duplicate (workspace, key) fails with the unique violation (SQLSTATE 23505), and nothing is
 * written. Never call inside a Prisma transaction: in embedded mode the pool has one connection.
 */
export async function insertFragment(
  pool: pg.Pool,
  context: RequestContext,
  fields: NewFragment,
  needs: readonly EnrichmentStep[],
): Promise<FragmentRow> {
  const now = new Date();
  const row: FragmentRow = {
    id: randomUUID(),
    ...fields,
    status: 'processing',
    version: 1,
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
  };
  const event = fragmentEvent(context, 'fragment.created', row, needs);
  await pool.query({
    ...INSERT_FRAGMENT,
    values: [
      row.id,
      row.workspaceId,
      row.fragmentTypeId,
      row.title,
      row.content,
      row.summary,
      row.summarySource,
      row.tags,
      row.enhanceTags,
      row.key,
      row.status,
      row.createdVia,
      row.version,
      JSON.stringify(row.enrichment),
      row.createdBy,
      row.updatedBy,
      now,
      event.aggregateType,
      event.eventType,
      JSON.stringify(event.payload),
      JSON.stringify(event.headers),
    ],
  });
  return row;
}
