import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { announcingOutbox, appendOutbox, outboxInsert, type NewOutboxEvent } from '@kw/platform-outbox';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { FragmentRow } from './rows.js';

/**
 * Reads one fragment by id with a plain `pg` statement instead of Prisma: the busiest read
 * of the platform (every GET, update, archive and delete starts with it), and under load
 * Prisma's query compiler and runtime were half of the fragments process's CPU for it.
 * The columns are exactly FragmentRow's, under the same names and types (uuid and text as
 * strings, text[] as arrays, jsonb parsed, timestamptz as Date), so callers cannot tell.
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

/**
 * The fragment rows of `insertManyWithEvents`, one `($1, ..., $17, $17)` tuple per fragment
 * (updated_at = created_at); their outbox rows follow in the same statement.
 */
const INSERT_FRAGMENTS = `INSERT INTO data.fragments (id, workspace_id, fragment_type_id, title, content, summary, summary_source, tags, enhance_tags, key,
                                       status, created_via, version, enrichment, created_by, updated_by, created_at, updated_at)`;
const INSERT_FRAGMENT_PARAMS = 17;

/** Which fragments a list shows. */
export interface FragmentFilter {
  workspaceId: string;
  id?: string;
  fragmentTypeId?: string;
  status?: string;
  key?: string;
  /** Fragments carrying every one of these tags (absent: any tags). */
  tags?: string[];
  includeArchived: boolean;
}

export interface FragmentOrder {
  field: 'createdAt' | 'updatedAt' | 'title';
  order: 'asc' | 'desc';
}

/** What an update writes (besides the version, incremented). */
export interface FragmentChanges {
  title: string;
  content: string;
  /** Present when the update supplied a summary (null clears it). */
  summary?: { summary: string | null; summarySource: 'user' | null };
  tags: string[];
  enhanceTags: boolean;
  fragmentTypeId?: string;
  /** Present when the update supplied a key (null clears it). */
  key?: string | null;
  /** Present when the text changed: the fragment goes back to `processing` with this enrichment state. */
  enrichment?: object;
  updatedBy: string;
}

export type VersionedUpdate = { updated: true; row: FragmentRow } | { updated: false; currentVersion: number };

/** Memory fragments (data.fragments) and the outbox rows announcing their changes. */
@Injectable()
export class FragmentsRepository {
  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  /** One fragment by id (a `pg` statement, so not inside a Prisma transaction). */
  async findById(id: string): Promise<FragmentRow | null> {
    const { rows } = await this.database.pool.query<FragmentRow>({ ...FRAGMENT_BY_ID, values: [id] });
    return rows[0] ?? null;
  }

  /**
   * Inserts a fragment and its outbox row in one statement (atomic without a transaction, one
   * round trip) with a `pg` statement. A create through Prisma was an interactive transaction of
   * four round trips, each back through the event loop, plus the query compiler: connections
   * sat "idle in transaction" while the process was busy. The row is built by the caller (id
   * and times from this process's clock, at millisecond precision like the column), so the
   * event's snapshot is known before the write.
   * A duplicate (workspace, key) fails with the unique violation (SQLSTATE 23505), and nothing is
   * written. A `pg` statement: never inside a Prisma transaction (the pool refuses it).
   */
  insertWithEvent(row: FragmentRow, event: NewOutboxEvent): Promise<void> {
    return this.insertManyWithEvents([row], [event]);
  }

  /**
   * Inserts many fragments and their outbox rows in one statement (bulk writes): one round trip
   * and one commit for all of them, and all or nothing, like `insertWithEvent` for one. `events`
   * holds one event per row, in the same order. A duplicate (workspace, key), with a fragment
   * already there or between two rows, fails the whole statement with the unique violation.
   */
  async insertManyWithEvents(rows: readonly FragmentRow[], events: readonly NewOutboxEvent[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.flatMap(fragmentInsertValues);
    const tuples = rows.map((_, r) => {
      const n = r * INSERT_FRAGMENT_PARAMS;
      const params = Array.from({ length: INSERT_FRAGMENT_PARAMS }, (_, p) => `$${n + p + 1}`);
      return `(${params.join(', ')}, $${n + INSERT_FRAGMENT_PARAMS})`; // updated_at = created_at
    });
    const outbox = outboxInsert(events, values.length + 1);
    // Unnamed, like FRAGMENT_BY_ID: a named statement outlives its pool client in the embedded
    // PGlite (one session for every socket).
    await announcingOutbox(
      this.database.pool.query({
        text: `WITH created AS (
           ${INSERT_FRAGMENTS}
           VALUES ${tuples.join(',\n                  ')}
           RETURNING id
         )
         ${outbox.text}`,
        values: [...values, ...outbox.values],
      }),
    );
  }

  /** Which of `keys` the workspace's fragments (archived ones too) hold, and by which fragment. */
  async idsByKeys(workspaceId: string, keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const found = await this.db.fragment.findMany({
      where: { workspaceId, key: { in: [...keys] } },
      select: { id: true, key: true },
    });
    return new Map(found.map((f) => [f.key!, f.id]));
  }

  /** Which of `ids` name a fragment, in any workspace (archived ones too). */
  async takenIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.db.fragment.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
    return new Set(found.map((f) => f.id));
  }

  /** The fragments of a workspace among `ids`. */
  async existingIds(workspaceId: string, ids: readonly string[]): Promise<string[]> {
    const found = await this.db.fragment.findMany({
      where: { workspaceId, id: { in: [...ids] } },
      select: { id: true },
    });
    return found.map((f) => f.id);
  }

  /** The fragment holding `key` in the workspace (archived ones too), for upserts. */
  async findByKey(workspaceId: string, key: string): Promise<FragmentRow | undefined> {
    const id = await this.findIdByKey(workspaceId, key);
    return (id && (await this.findById(id))) || undefined;
  }

  async findIdByKey(workspaceId: string, key: string): Promise<string | undefined> {
    const existing = await this.db.fragment.findUnique({
      where: { workspaceId_key: { workspaceId, key } },
      select: { id: true },
    });
    return existing?.id;
  }

  /** Every fragment of the workspace, archived ones included. */
  countInWorkspace(workspaceId: string): Promise<number> {
    return this.db.fragment.count({ where: { workspaceId } });
  }

  countMatching(filter: FragmentFilter): Promise<number> {
    return this.db.fragment.count({ where: whereOf(filter) });
  }

  /** A page of the fragments matching, in `order` with the id breaking ties. */
  findMatching(filter: FragmentFilter, order: FragmentOrder, take: number, skip: number): Promise<FragmentRow[]> {
    return this.db.fragment.findMany({
      where: whereOf(filter),
      orderBy: [{ [order.field]: order.order }, { id: order.order }],
      take,
      skip,
    });
  }

  /**
   * Writes `changes` if the fragment is still at `current.version` (optimistic concurrency), with
   * the outbox row `eventOf` makes of the updated row, in one transaction. When the text is
   * unchanged its embeddings still hold: they follow the new version (search counts only chunks
   * of the fragment's current version).
   */
  async updateWithEvent(
    current: FragmentRow,
    changes: FragmentChanges,
    eventOf: (updated: FragmentRow) => NewOutboxEvent,
  ): Promise<VersionedUpdate> {
    return announcingOutbox(
      this.db.$transaction(async (tx) => {
        const { count } = await tx.fragment.updateMany({
          where: { id: current.id, version: current.version },
          data: {
            title: changes.title,
            content: changes.content,
            ...(changes.summary && changes.summary),
            tags: changes.tags,
            enhanceTags: changes.enhanceTags,
            ...(changes.fragmentTypeId !== undefined && { fragmentTypeId: changes.fragmentTypeId }),
            ...(changes.key !== undefined && { key: changes.key }),
            ...(changes.enrichment !== undefined && { status: 'processing', enrichment: changes.enrichment }),
            version: { increment: 1 },
            updatedBy: changes.updatedBy,
          },
        });
        const updated = await tx.fragment.findUniqueOrThrow({ where: { id: current.id } });
        // Someone else's update landed between the read and this write: nothing was changed.
        if (count === 0) return { updated: false, currentVersion: updated.version };
        if (changes.enrichment === undefined)
          await tx.fragmentChunk.updateMany({
            where: { fragmentId: current.id, version: current.version },
            data: { version: updated.version },
          });
        await appendOutbox(tx, eventOf(updated));
        return { updated: true, row: updated };
      }),
    );
  }

  /** Archives the fragment (version + 1) with the outbox row `eventOf` makes of the archived row. */
  async archiveWithEvent(
    current: FragmentRow,
    eventOf: (archived: FragmentRow) => NewOutboxEvent,
  ): Promise<FragmentRow> {
    return announcingOutbox(
      this.db.$transaction(async (tx) => {
        const archived = await tx.fragment.update({
          where: { id: current.id },
          data: { archivedAt: new Date(), version: { increment: 1 } },
        });
        await appendOutbox(tx, eventOf(archived));
        return archived;
      }),
    );
  }

  /** Deletes the fragment for good (chunks, links and mentions cascade) with its outbox row. */
  async deleteWithEvent(current: FragmentRow, event: NewOutboxEvent): Promise<void> {
    await announcingOutbox(
      this.db.$transaction(async (tx) => {
        await tx.fragment.delete({ where: { id: current.id } });
        await appendOutbox(tx, event);
      }),
    );
  }
}

function whereOf(filter: FragmentFilter) {
  return {
    workspaceId: filter.workspaceId,
    ...(filter.id !== undefined && { id: filter.id }),
    ...(filter.fragmentTypeId !== undefined && { fragmentTypeId: filter.fragmentTypeId }),
    ...(filter.status !== undefined && { status: filter.status }),
    ...(filter.key !== undefined && { key: filter.key }),
    ...(filter.tags !== undefined && { tags: { hasEvery: filter.tags } }),
    ...(!filter.includeArchived && { archivedAt: null }),
  };
}

/** A row's values for its INSERT_FRAGMENTS tuple (INSERT_FRAGMENT_PARAMS of them), in column order. */
function fragmentInsertValues(row: FragmentRow): unknown[] {
  return [
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
    row.createdAt,
  ];
}
