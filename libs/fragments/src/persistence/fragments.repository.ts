import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { announcingOutbox, appendOutbox, outboxInsert, type NewOutboxEvent } from '@kw/platform-outbox';
import { sqlTransaction, type Database, type SqlExecutor, lockUntilCommit } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { isUuid } from '@kw/platform-ids';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { FragmentRow } from './rows.js';

/** FragmentRow's columns under its names (uuid and text as strings, jsonb parsed, timestamptz as Date). */
const FRAGMENT_COLUMNS = `id, workspace_id AS "workspaceId", fragment_type_id AS "fragmentTypeId", title, content, summary,
                summary_source AS "summarySource", tags, enhance_tags AS "enhanceTags", key, status,
                created_via AS "createdVia", version, enrichment, created_by AS "createdBy", updated_by AS "updatedBy",
                created_at AS "createdAt", updated_at AS "updatedAt", archived_at AS "archivedAt"`;

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
  text: `SELECT ${FRAGMENT_COLUMNS} FROM data.fragments WHERE id = $1`,
};

/** FRAGMENT_BY_ID, the row locked until the transaction ends (an update that must not lose a race). */
const FRAGMENT_BY_ID_LOCKED = `${FRAGMENT_BY_ID.text} FOR UPDATE`;

const FRAGMENTS_BY_KEYS = `SELECT ${FRAGMENT_COLUMNS} FROM data.fragments WHERE workspace_id = $1 AND key = ANY($2::text[])`;

/**
 * The listing's page and count (GET /api/memory-fragments, MCP's list): plain statements too,
 * FragmentRow's columns as in FRAGMENT_BY_ID. `%WHERE%` and `%ORDER%` are filled by `listingWhere`
 * and `ORDER_COLUMNS` only, never from input.
 */
const LIST_FRAGMENTS = `SELECT ${FRAGMENT_COLUMNS} FROM data.fragments WHERE %WHERE% ORDER BY %ORDER% LIMIT $%TAKE% OFFSET $%SKIP%`;
const RETURNING_FRAGMENT = `RETURNING ${FRAGMENT_COLUMNS}`;
/** An update at the version read ($1 the id, $2 that version); `%SET%` from `updateWithEvent` only. */
const UPDATE_FRAGMENT = `UPDATE data.fragments SET %SET%, version = version + 1
  WHERE id = $1 AND version = $2 ${RETURNING_FRAGMENT}`;
/** $2 is the time of archiving (this process's clock, like every other time the platform writes). */
const ARCHIVE_FRAGMENT = `UPDATE data.fragments SET archived_at = $2, version = version + 1, updated_at = $2
  WHERE id = $1 AND archived_at IS NULL ${RETURNING_FRAGMENT}`;
const COUNT_FRAGMENTS = `SELECT count(*)::int AS count FROM data.fragments WHERE %WHERE%`;
const COUNT_IN_WORKSPACE = `SELECT count(*)::int AS count FROM data.fragments WHERE workspace_id = $1::uuid`;
const ORDER_COLUMNS: Record<FragmentOrder['field'], string> = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  title: 'title',
};

/**
 * The fragment rows of `insertManyWithEvents`, one `($1, ..., $17, $17)` tuple per fragment
 * (updated_at = created_at); their outbox rows follow in the same statement.
 */
const INSERT_FRAGMENTS = `INSERT INTO data.fragments (id, workspace_id, fragment_type_id, title, content, summary, summary_source, tags, enhance_tags, key,
                                       status, created_via, version, enrichment, created_by, updated_by, created_at, updated_at)`;
const INSERT_FRAGMENT_PARAMS = 17;

/** The statement of `insertManyWithEvents`: the fragment rows, then their outbox rows. */
function insertStatement(
  rows: readonly FragmentRow[],
  events: readonly NewOutboxEvent[],
): { text: string; values: unknown[] } {
  const values = rows.flatMap(fragmentInsertValues);
  const tuples = rows.map((_, r) => {
    const n = r * INSERT_FRAGMENT_PARAMS;
    const params = Array.from({ length: INSERT_FRAGMENT_PARAMS }, (_, p) => `$${n + p + 1}`);
    return `(${params.join(', ')}, $${n + INSERT_FRAGMENT_PARAMS})`; // updated_at = created_at
  });
  const outbox = outboxInsert(events, values.length + 1);
  return {
    text: `WITH created AS (
           ${INSERT_FRAGMENTS}
           VALUES ${tuples.join(',\n                  ')}
           RETURNING id
         )
         ${outbox.text}`,
    values: [...values, ...outbox.values],
  };
}

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
  /**
   * Present when enrichment runs again (the text changed, or the summary was cleared): the
   * fragment goes back to `processing` with this enrichment state.
   */
  enrichment?: object;
  updatedBy: string;
}

/** `gone`: the fragment was deleted for good between the caller's read and this write. */
export type VersionedUpdate =
  { updated: true; row: FragmentRow } | { updated: false; currentVersion: number } | { updated: false; gone: true };

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
    // Unnamed, like FRAGMENT_BY_ID: a named statement outlives its pool client in the embedded
    // PGlite (one session for every socket).
    await announcingOutbox(this.database.pool.query(insertStatement(rows, events)));
  }

  /**
   * `insertManyWithEvents` for as many of `rows` (from the first) as the workspace has room for
   * under `max` fragments (archived ones count). The count and the insert run in one transaction
   * under a per-workspace advisory lock, so creates at the same instant, on any replica, cannot
   * pass the limit together: the quota uses it near the limit only, where the lock serialising a
   * workspace's creates costs little. Answers how many were written and the count with them.
   */
  async insertWithinLimit(
    workspaceId: string,
    rows: readonly FragmentRow[],
    events: readonly NewOutboxEvent[],
    max: number,
  ): Promise<{ written: number; count: number }> {
    return announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        await lockUntilCommit(tx, `fragments-of:${workspaceId}`);
        // Read after the lock is held: READ COMMITTED sees every create that held it before.
        const [{ count }] = await tx.$queryRawUnsafe<Array<{ count: number }>>(COUNT_IN_WORKSPACE, workspaceId);
        const written = Math.max(0, Math.min(rows.length, max - count));
        if (written > 0) {
          const insert = insertStatement(rows.slice(0, written), events.slice(0, written));
          await tx.$executeRawUnsafe(insert.text, ...insert.values);
        }
        return { written, count: count + written };
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
    return (await this.findManyByKeys(workspaceId, [key])).get(key);
  }

  /**
   * The fragments holding `keys` in the workspace (archived ones too), by key: one statement
   * (decision 0008), a bulk request's one read of the keys it names.
   */
  async findManyByKeys(workspaceId: string, keys: readonly string[]): Promise<Map<string, FragmentRow>> {
    if (keys.length === 0) return new Map();
    const { rows } = await this.database.pool.query<FragmentRow>(FRAGMENTS_BY_KEYS, [workspaceId, keys]);
    return new Map(rows.map((row) => [row.key!, row]));
  }

  /** The id of the fragment holding `key` (a key conflict names it: a rare path, the row read whole). */
  async findIdByKey(workspaceId: string, key: string): Promise<string | undefined> {
    return (await this.findByKey(workspaceId, key))?.id;
  }

  /** Every fragment of the workspace, archived ones included. */
  countInWorkspace(workspaceId: string): Promise<number> {
    return this.db.fragment.count({ where: { workspaceId } });
  }

  async countMatching(filter: FragmentFilter): Promise<number> {
    const where = listingWhere(filter);
    if (!where) return 0;
    const { rows } = await this.database.pool.query<{ count: number }>(
      COUNT_FRAGMENTS.replace('%WHERE%', () => where.text),
      where.values,
    );
    return rows[0]!.count;
  }

  /** A page of the fragments matching, in `order` with the id breaking ties. */
  async findMatching(filter: FragmentFilter, order: FragmentOrder, take: number, skip: number): Promise<FragmentRow[]> {
    const where = listingWhere(filter);
    if (!where) return [];
    const direction = order.order === 'desc' ? 'DESC' : 'ASC';
    const text = LIST_FRAGMENTS.replace('%WHERE%', () => where.text)
      .replace('%ORDER%', `${ORDER_COLUMNS[order.field]} ${direction}, id ${direction}`)
      .replace('%TAKE%', String(where.values.length + 1))
      .replace('%SKIP%', String(where.values.length + 2));
    const { rows } = await this.database.pool.query<FragmentRow>(text, [...where.values, take, skip]);
    return rows;
  }

  /**
   * Writes `changes` if the fragment is still at `current.version` (optimistic concurrency), with
   * the outbox row `eventOf` makes of the updated row, in one transaction. Plain `pg` (decision
   * 0008), as the create.
   */
  async updateWithEvent(
    current: FragmentRow,
    changes: FragmentChanges,
    eventOf: (updated: FragmentRow) => NewOutboxEvent,
  ): Promise<VersionedUpdate> {
    return announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        const updated = await writeUpdate(tx, current, changes, eventOf);
        if (updated) return { updated: true, row: updated };
        // Someone else's update (or permanent delete) landed between the read and this write.
        const [now] = await tx.$queryRawUnsafe<FragmentRow[]>(FRAGMENT_BY_ID.text, current.id);
        return now ? { updated: false, currentVersion: now.version } : { updated: false, gone: true };
      }),
    );
  }

  /**
   * An update with no version precondition: locks the fragment's row, asks `plan` what to write
   * over the row as it is now, and writes it, in one transaction. Concurrent ones wait for each
   * other, so none is lost. `plan` runs inside the transaction: it must not touch the database
   * (a pure function of the row); what it throws rolls the transaction back and is rethrown.
   */
  async updateLatestWithEvent(
    fragmentId: string,
    plan: (locked: FragmentRow) => { changes: FragmentChanges; eventOf: (updated: FragmentRow) => NewOutboxEvent },
  ): Promise<{ updated: true; row: FragmentRow } | { updated: false; gone: true }> {
    return announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        const [locked] = await tx.$queryRawUnsafe<FragmentRow[]>(FRAGMENT_BY_ID_LOCKED, fragmentId);
        if (!locked) return { updated: false, gone: true };
        const { changes, eventOf } = plan(locked);
        const updated = await writeUpdate(tx, locked, changes, eventOf);
        if (!updated) throw new Error(`fragment ${fragmentId}: a locked row changed under its update`);
        return { updated: true, row: updated };
      }),
    );
  }

  /**
   * Archives the fragment (version + 1) with the outbox row `eventOf` makes of the archived row.
   * A concurrent archive that landed first is answered with its row and no second event;
   * undefined when the fragment was deleted for good meanwhile.
   */
  async archiveWithEvent(
    current: FragmentRow,
    eventOf: (archived: FragmentRow) => NewOutboxEvent,
  ): Promise<FragmentRow | undefined> {
    return announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        const [archived] = await tx.$queryRawUnsafe<FragmentRow[]>(ARCHIVE_FRAGMENT, current.id, new Date());
        if (!archived) return (await tx.$queryRawUnsafe<FragmentRow[]>(FRAGMENT_BY_ID.text, current.id))[0];
        await appendOutbox(tx, eventOf(archived));
        return archived;
      }),
    );
  }

  /**
   * Deletes the fragment for good (chunks, links and mentions cascade) with its outbox row; false
   * (and no event) when a concurrent delete removed it first.
   */
  async deleteWithEvent(current: FragmentRow, event: NewOutboxEvent): Promise<boolean> {
    return announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        const deleted = await tx.$executeRaw`DELETE FROM data.fragments WHERE id = ${current.id}::uuid`;
        if (deleted === 0) return false;
        await appendOutbox(tx, event);
        return true;
      }),
    );
  }
}

/**
 * Writes `changes` over `current` if it is still at its version, with the outbox row `eventOf`
 * makes of the updated row; undefined (nothing written) when the version moved on. When the text
 * is unchanged its embeddings still hold: they follow the new version (search counts only chunks
 * of the fragment's current version).
 */
async function writeUpdate(
  tx: SqlExecutor,
  current: FragmentRow,
  changes: FragmentChanges,
  eventOf: (updated: FragmentRow) => NewOutboxEvent,
): Promise<FragmentRow | undefined> {
  const sets = [
    'title = $3',
    'content = $4',
    'tags = $5::text[]',
    'enhance_tags = $6',
    'updated_by = $7',
    'updated_at = $8',
  ];
  const values: unknown[] = [
    current.id,
    current.version,
    changes.title,
    changes.content,
    changes.tags,
    changes.enhanceTags,
    changes.updatedBy,
    new Date(),
  ];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (changes.summary) {
    set('summary', changes.summary.summary);
    set('summary_source', changes.summary.summarySource);
  }
  if (changes.fragmentTypeId !== undefined) set('fragment_type_id', changes.fragmentTypeId);
  if (changes.key !== undefined) set('key', changes.key);
  if (changes.enrichment !== undefined) {
    sets.push(`status = 'processing'`);
    set('enrichment', JSON.stringify(changes.enrichment));
  }
  const update = UPDATE_FRAGMENT.replace('%SET%', () => sets.join(', '));
  const [updated] = await tx.$queryRawUnsafe<FragmentRow[]>(update, ...values);
  if (!updated) return undefined;
  if (changes.title === current.title && changes.content === current.content)
    await tx.$executeRaw`UPDATE data.fragment_chunks SET version = ${updated.version}
                          WHERE fragment_id = ${current.id}::uuid AND version = ${current.version}`;
  await appendOutbox(tx, eventOf(updated));
  return updated;
}

/**
 * The listing's conditions as SQL with positional parameters; undefined when an id filter is
 * not a UUID (it can match nothing, and Postgres would refuse the comparison).
 */
function listingWhere(filter: FragmentFilter): { text: string; values: unknown[] } | undefined {
  if (
    (filter.id !== undefined && !isUuid(filter.id)) ||
    (filter.fragmentTypeId !== undefined && !isUuid(filter.fragmentTypeId))
  )
    return undefined;
  const values: unknown[] = [filter.workspaceId];
  const conditions = ['workspace_id = $1'];
  const add = (condition: (param: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (filter.id !== undefined) add((p) => `id = ${p}`, filter.id);
  if (filter.fragmentTypeId !== undefined) add((p) => `fragment_type_id = ${p}`, filter.fragmentTypeId);
  if (filter.status !== undefined) add((p) => `status = ${p}`, filter.status);
  if (filter.key !== undefined) add((p) => `key = ${p}`, filter.key);
  // Tags compare case-insensitively (the tags_folded GIN index), as in search and the structured listing.
  if (filter.tags !== undefined)
    add((p) => `tags_folded @> ARRAY(SELECT lower(t) FROM unnest(${p}::text[]) t)`, filter.tags);
  if (!filter.includeArchived) conditions.push('archived_at IS NULL');
  return { text: conditions.join(' AND '), values };
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
