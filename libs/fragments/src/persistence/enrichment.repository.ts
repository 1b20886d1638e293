import { Inject, Injectable } from '@nestjs/common';
import { normalizeEntityName, type GraphExtraction } from '@kw/platform-ai';
import { appendOutbox, recordProcessedEvent, wasEventProcessed, type NewOutboxEvent } from '@kw/platform-outbox';
import { sqlStatements, sqlTransaction, type Database, type SqlExecutor } from '@kw/platform-persistence';
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
    return this.db.$transaction(async (tx) => {
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
    });
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
      SELECT id::text AS id, workspace_id::text AS "workspaceId", title, content, version, summary_source AS "summarySource", enhance_tags AS "enhanceTags", enrichment
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
    await sqlTransaction(this.database.pool, async (tx) => {
      const locked = await this.lock(tx, fragment.id, version);
      if (!(await recordProcessedEvent(tx, consumer, eventId)) || !locked) return;
      for (const write of plan(locked)) await this.write(tx, fragment, version, write);
      // Published even with a failed step: the fragment stays readable, the failure is in `enrichment`.
      await tx.$executeRaw`UPDATE data.fragments SET enrichment = enrichment || ${JSON.stringify(states)}::jsonb, status = 'published'
        WHERE id = ${fragment.id}::uuid AND version = ${version}`;
    });
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
    await appendOutbox(this.db, events);
  }

  /** Locks the fragment row if it is still at the event's version. */
  private async lock(tx: SqlExecutor, fragmentId: string, version: number): Promise<LockedFragment | undefined> {
    const rows = await tx.$queryRaw<
      Array<{ version: number; tags: string[]; summary_source: string | null }>
    >`SELECT version, tags, summary_source FROM data.fragments WHERE id = ${fragmentId}::uuid FOR UPDATE`;
    const row = rows[0];
    return row && row.version === version
      ? { version: row.version, tags: row.tags, summarySource: row.summary_source }
      : undefined;
  }

  // Raw statements for the hot writes: through Prisma's query builder, a chunk's vector
  // alone cost more CPU than the rest of the step (enrichment is bound by this process's CPU).
  private async write(
    tx: SqlExecutor,
    fragment: Pick<FragmentText, 'id' | 'workspaceId'>,
    version: number,
    write: StepWrite,
  ): Promise<void> {
    switch (write.step) {
      case 'summary':
        await tx.$executeRaw`UPDATE data.fragments SET summary = ${write.summary}, summary_source = 'ai', updated_at = now() WHERE id = ${fragment.id}::uuid`;
        return;
      case 'tags':
        await tx.$executeRaw`UPDATE data.fragments SET tags = ${write.tags}::text[], updated_at = now() WHERE id = ${fragment.id}::uuid`;
        return;
      case 'embedding':
        await tx.$executeRaw`DELETE FROM data.fragment_chunks WHERE fragment_id = ${fragment.id}::uuid`;
        if (write.chunks.length > 0) {
          const texts = write.chunks.map((c) => c.text);
          const vectors = write.chunks.map(
            (c) => `{${c.embedding.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}`,
          );
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
    await tx.$executeRaw`INSERT INTO data.graph_entities (workspace_id, kind, name, normalized_name)
      SELECT ${fragment.workspaceId}::uuid, e.kind, e.name, e.normalized FROM unnest(${kinds}::text[], ${names}::text[], ${normalized}::text[]) AS e(kind, name, normalized)
      ON CONFLICT (workspace_id, kind, normalized_name) DO NOTHING`;
    const rows = await tx.$queryRaw<Array<{ id: string; kind: string; normalized_name: string }>>`
      SELECT id::text AS id, kind, normalized_name FROM data.graph_entities
       WHERE workspace_id = ${fragment.workspaceId}::uuid AND (kind, normalized_name) IN (SELECT * FROM unnest(${kinds}::text[], ${normalized}::text[]))`;
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
