import { Inject, Injectable } from '@nestjs/common';
import { normalizeEntityName, type GraphExtraction } from '@kw/platform-ai';
import {
  announcingOutbox,
  appendOutbox,
  type NewOutboxEvent,
  recordProcessedEvent,
  wasEventProcessed,
} from '@kw/platform-outbox';
import {
  DataPrisma,
  realArrayLiteral,
  sqlStatements,
  sqlTransaction,
  type Database,
  type SqlExecutor,
} from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { FRAGMENTS_DB, type DataDb } from './fragments-database.js';
import type { FragmentText, ProcessingFragment } from './rows.js';

/** The fragment row as the enrichment transaction locks it. */
export interface LockedFragment {
  version: number;
  tags: string[];
  summarySource: string | null;
}

/** What the enrichment state of a fragment is when a re-enrich request locks it. */
export interface LockedEnrichment {
  version: number;
  enrichment: unknown;
  workspaceId: string;
}

/** A step's result as it is written: every write replaces what an earlier run of the step wrote. */
export type StepWrite =
  | { step: 'summary'; summary: string }
  | { step: 'tags'; tags: string[] }
  /** The chunks and the outbox row (fragment.embedded) an external vector index follows. */
  | { step: 'embedding'; chunks: Array<{ text: string; embedding: number[] }>; event: NewOutboxEvent }
  | { step: 'graph'; graph: GraphExtraction };

/**
 * What the enrichment pipeline reads and writes: the fragment's text and enrichment state, its
 * chunks and graph, its events, and the processed-events records of its consumer.
 */
@Injectable()
export class EnrichmentRepository {
  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    /** The process's pool (the enrichment's write transaction runs on it with plain `pg`). */
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /** The two reads of every enrichment, through plain `pg` too. */
  private readonly plain = sqlStatements(() => this.database.pool);

  /** Who may re-enrich the fragment: its workspace and creator. */
  findOwner(fragmentId: string): Promise<{ workspaceId: string; createdBy: string } | null> {
    return this.db.fragment.findUnique({ where: { id: fragmentId }, select: { workspaceId: true, createdBy: true } });
  }

  /**
   * Locks the fragment row and, in the same transaction, writes the enrichment state and the
   * outbox row `plan` decides from it, with the status back to `processing`. Undefined when the
   * fragment is gone.
   */
  async requeue<T>(
    fragmentId: string,
    plan: (row: LockedEnrichment) => { enrichment: object; event: NewOutboxEvent; result: T },
  ): Promise<T | undefined> {
    return announcingOutbox(
      this.db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ version: number; enrichment: unknown; workspace_id: string }>>`
        SELECT version, enrichment, workspace_id::text FROM data.fragments WHERE id = ${fragmentId}::uuid FOR UPDATE`;
        const row = rows[0];
        if (!row) return undefined;
        const planned = plan({ version: row.version, enrichment: row.enrichment, workspaceId: row.workspace_id });
        await tx.fragment.update({
          where: { id: fragmentId },
          data: { status: 'processing', enrichment: planned.enrichment },
        });
        await appendOutbox(tx, planned.event);
        return planned.result;
      }),
    );
  }

  wasProcessed(consumer: string, eventId: string): Promise<boolean> {
    return wasEventProcessed(this.plain, consumer, eventId);
  }

  async markProcessed(consumer: string, eventId: string): Promise<void> {
    await recordProcessedEvent(this.db, consumer, eventId);
  }

  /** The text the steps work on, and the enrichment state. */
  async loadText(fragmentId: string): Promise<(FragmentText & { enrichment: unknown }) | undefined> {
    const [row] = await this.plain.$queryRaw<Array<FragmentText & { enrichment: unknown }>>`
      SELECT id::text AS id, workspace_id::text AS "workspaceId", created_by::text AS "createdBy", title, content, version, summary_source AS "summarySource", enhance_tags AS "enhanceTags", enrichment
        FROM data.fragments WHERE id = ${fragmentId}::uuid`;
    return row;
  }

  /**
   * Writes an event's enrichment in one transaction: locks the fragment if it is still at
   * `version`, records the event processed for `consumer`, writes the results `plan` makes of
   * the locked row, merges `states` into the enrichment state and publishes the fragment. Writes
   * nothing when another delivery processed the event meanwhile, or the fragment moved on.
   * Plain `pg` (sqlTransaction): through a Prisma interactive transaction, its ten-odd statements
   * were most of the fragments process's CPU while enrichment drained (bench/README.md, pass 3).
   */
  async writeResults(
    consumer: string,
    eventId: string,
    fragment: Pick<FragmentText, 'id' | 'workspaceId'>,
    version: number,
    states: Record<string, unknown>,
    plan: (locked: LockedFragment) => StepWrite[],
  ): Promise<void> {
    // Announced: the embedding step's event (vector sync) is in the outbox.
    await announcingOutbox(
      sqlTransaction(this.database.pool, async (tx) => {
        const locked = await this.lockAndRecord(tx, consumer, eventId, fragment.id, version);
        if (!locked) return;
        // The summary and tags go into the publishing UPDATE: one write of the row (and one
        // refresh of its inverted index, which the search trigger rewrites per changed document).
        const fields: DataPrisma.Sql[] = [];
        for (const write of plan(locked)) {
          if (write.step === 'summary') fields.push(DataPrisma.sql`summary = ${write.summary}, summary_source = 'ai'`);
          else if (write.step === 'tags') fields.push(DataPrisma.sql`tags = ${write.tags}::text[]`);
          else await this.write(tx, fragment, version, write);
        }
        const changed =
          fields.length > 0 ? DataPrisma.sql`${DataPrisma.join(fields, ', ')}, updated_at = now(), ` : DataPrisma.empty;
        // Published even with a failed step: the fragment stays readable, the failure is in `enrichment`.
        await tx.$executeRaw`UPDATE data.fragments SET ${changed}enrichment = enrichment || ${JSON.stringify(states)}::jsonb, status = 'published'
        WHERE id = ${fragment.id}::uuid AND version = ${version}`;
      }),
    );
  }

  /** The fragments left `processing` (not archived), by id after `afterId`. */
  findProcessing(afterId: string | undefined, take: number): Promise<ProcessingFragment[]> {
    return this.db.fragment.findMany({
      where: { status: 'processing', archivedAt: null, ...(afterId ? { id: { gt: afterId } } : {}) },
      select: { id: true, workspaceId: true, version: true, enrichment: true },
      orderBy: { id: 'asc' },
      take,
    });
  }

  /** Writes enrichment requests (or any events) to the outbox, in one statement. */
  async appendEvents(events: readonly NewOutboxEvent[]): Promise<void> {
    await announcingOutbox(appendOutbox(this.db, events));
  }

  /**
   * Records the event processed for `consumer` and locks the fragment row, in one statement; the
   * row when the event was not recorded before and the fragment is still at the event's version.
   * (The INSERT runs whether or not the fragment is still there: a gone fragment's event is done.)
   */
  private async lockAndRecord(
    tx: SqlExecutor,
    consumer: string,
    eventId: string,
    fragmentId: string,
    version: number,
  ): Promise<LockedFragment | undefined> {
    const rows = await tx.$queryRaw<
      Array<{ version: number; tags: string[]; summary_source: string | null; recorded: number }>
    >`WITH recorded AS (
        INSERT INTO data.processed_events (consumer, event_id) VALUES (${consumer}, ${eventId}::uuid) ON CONFLICT DO NOTHING RETURNING 1
      )
      SELECT f.version, f.tags, f.summary_source, (SELECT count(*) FROM recorded)::int AS recorded
        FROM data.fragments f WHERE f.id = ${fragmentId}::uuid FOR UPDATE OF f`;
    const row = rows[0];
    return row && row.recorded === 1 && row.version === version
      ? { version: row.version, tags: row.tags, summarySource: row.summary_source }
      : undefined;
  }

  // Raw statements for the hot writes: through Prisma's query builder, a chunk's vector
  // alone cost more CPU than the rest of the step (enrichment is bound by this process's CPU).
  private async write(
    tx: SqlExecutor,
    fragment: Pick<FragmentText, 'id' | 'workspaceId'>,
    version: number,
    // Summary and tags are columns of the publishing UPDATE (writeResults).
    write: Exclude<StepWrite, { step: 'summary' | 'tags' }>,
  ): Promise<void> {
    switch (write.step) {
      case 'embedding':
        await tx.$executeRaw`DELETE FROM data.fragment_chunks WHERE fragment_id = ${fragment.id}::uuid`;
        if (write.chunks.length > 0) {
          const texts = write.chunks.map((c) => c.text);
          const vectors = write.chunks.map((c) => realArrayLiteral(c.embedding));
          await tx.$executeRaw`INSERT INTO data.fragment_chunks (fragment_id, workspace_id, ordinal, text, embedding, version)
            SELECT ${fragment.id}::uuid, ${fragment.workspaceId}::uuid, c.ordinal - 1, c.text, c.embedding::float4[], ${version}
              FROM unnest(${texts}::text[], ${vectors}::text[]) WITH ORDINALITY AS c(text, embedding, ordinal)`;
        }
        // Same transaction as the chunks: an external vector index (Qdrant) follows them.
        await appendOutbox(tx, write.event);
        return;
      case 'graph':
        await this.replaceGraph(tx, fragment, write.graph);
        return;
    }
  }

  private async replaceGraph(
    tx: SqlExecutor,
    fragment: Pick<FragmentText, 'id' | 'workspaceId'>,
    graph: GraphExtraction,
  ): Promise<void> {
    await tx.$executeRaw`WITH relations AS (DELETE FROM data.graph_relations WHERE fragment_id = ${fragment.id}::uuid)
      DELETE FROM data.graph_mentions WHERE fragment_id = ${fragment.id}::uuid`;
    if (graph.entities.length === 0) return;
    const key = (kind: string, normalized: string) => `${kind}\u0000${normalized}`;
    const kinds = graph.entities.map((e) => e.kind);
    const names = graph.entities.map((e) => e.name);
    const normalized = graph.entities.map((e) => normalizeEntityName(e.name));
    // Entities are shared by the workspace: created once, whoever mentions them first (no row
    // is locked, so enrichments mentioning the same entities never wait for each other).
    // One statement: the entities this fragment mentions that the workspace lacks are inserted
    // (RETURNING them), the others read (that SELECT does not see the CTE's rows, hence the union).
    const rows = await tx.$queryRaw<Array<{ id: string; kind: string; normalized_name: string }>>`
      WITH wanted AS (
        SELECT * FROM unnest(${kinds}::text[], ${names}::text[], ${normalized}::text[]) AS e(kind, name, normalized)
      ), inserted AS (
        INSERT INTO data.graph_entities (workspace_id, kind, name, normalized_name)
        SELECT ${fragment.workspaceId}::uuid, kind, name, normalized FROM wanted
        ON CONFLICT (workspace_id, kind, normalized_name) DO NOTHING
        RETURNING id, kind, normalized_name
      )
      SELECT id::text AS id, kind, normalized_name FROM inserted
      UNION ALL
      SELECT g.id::text, g.kind, g.normalized_name FROM data.graph_entities g
       WHERE g.workspace_id = ${fragment.workspaceId}::uuid AND (g.kind, g.normalized_name) IN (SELECT kind, normalized FROM wanted)`;
    // An entity another enrichment inserted and committed while this statement waited on it is in
    // neither half (the statement's snapshot is older): read those again, with a new snapshot.
    const found = new Set(rows.map((r) => key(r.kind, r.normalized_name)));
    const missing = kinds
      .map((kind, i) => ({ kind, normalized: normalized[i]! }))
      .filter((e) => !found.has(key(e.kind, e.normalized)));
    if (missing.length > 0)
      rows.push(
        ...(await tx.$queryRaw<Array<{ id: string; kind: string; normalized_name: string }>>`
          SELECT id::text AS id, kind, normalized_name FROM data.graph_entities
           WHERE workspace_id = ${fragment.workspaceId}::uuid
             AND (kind, normalized_name) IN (SELECT * FROM unnest(${missing.map((e) => e.kind)}::text[], ${missing.map((e) => e.normalized)}::text[]))`),
      );
    const ids = new Map(rows.map((r) => [key(r.kind, r.normalized_name), r.id]));
    const relations = graph.relations
      .map((r) => ({
        sourceId: ids.get(key(r.source.kind, normalizeEntityName(r.source.name))),
        targetId: ids.get(key(r.target.kind, normalizeEntityName(r.target.name))),
        kind: r.kind,
      }))
      .filter(
        (r): r is { sourceId: string; targetId: string; kind: string } =>
          !!r.sourceId && !!r.targetId && r.sourceId !== r.targetId,
      );
    const entityIds = [...new Set(rows.map((r) => r.id))];
    await tx.$executeRaw`WITH relations AS (
        INSERT INTO data.graph_relations (workspace_id, source_id, target_id, kind, fragment_id)
        SELECT ${fragment.workspaceId}::uuid, r.source, r.target, r.kind, ${fragment.id}::uuid
          FROM unnest(${relations.map((r) => r.sourceId)}::uuid[], ${relations.map((r) => r.targetId)}::uuid[], ${relations.map((r) => r.kind)}::text[]) AS r(source, target, kind)
        ON CONFLICT (source_id, target_id, kind, fragment_id) DO NOTHING
      )
      INSERT INTO data.graph_mentions (entity_id, fragment_id) SELECT e, ${fragment.id}::uuid FROM unnest(${entityIds}::uuid[]) AS e
      ON CONFLICT (entity_id, fragment_id) DO NOTHING`;
  }
}
