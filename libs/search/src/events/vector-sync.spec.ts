import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '@kw/platform-config';
import { InProcessEventBus, type DomainEvent } from '@kw/platform-outbox';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import type { SearchDb } from '../persistence/search-database.js';
import { type IndexedChunk, type VectorIndexSync } from '../service/vector/vector-index.js';
import { VectorSyncRepository } from '../persistence/vector-sync.repository.js';
import { VectorIndexSyncer, type BackfillProgress } from './vector-sync.js';
import { VectorIndexSyncWorker } from './vector-sync.worker.js';

/** The writer port, recorded: what an external index would hold, and every call made to it. */
class RecordingIndex implements VectorIndexSync {
  readonly external = true;
  readonly points = new Map<string, { workspaceId: string; version: number; chunks: IndexedChunk[] }>();
  readonly calls: string[] = [];
  /** While set, every write fails (the index is down). */
  down = false;
  /** Writes refused while down. */
  refused: string[] = [];

  async upsertFragment(
    workspaceId: string,
    fragmentId: string,
    version: number,
    chunks: IndexedChunk[],
  ): Promise<void> {
    if (this.down) {
      this.refused.push(fragmentId);
      throw new Error('index unreachable');
    }
    this.calls.push(`upsert ${fragmentId}`);
    this.points.set(fragmentId, { workspaceId, version, chunks });
  }

  async deleteFragment(fragmentId: string): Promise<void> {
    if (this.down) throw new Error('index unreachable');
    this.calls.push(`delete ${fragmentId}`);
    this.points.delete(fragmentId);
  }

  async deleteWorkspace(workspaceId: string): Promise<void> {
    for (const [id, point] of this.points) if (point.workspaceId === workspaceId) this.points.delete(id);
  }

  async isEmpty(): Promise<boolean> {
    return this.points.size === 0;
  }
}

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

/**
 * The Qdrant sync without Qdrant: the consumer and the backfill against real Postgres, with a
 * recording implementation of the writer port (the HTTP adapter is covered by
 * test/e2e/search/search-qdrant.spec.ts when QDRANT_URL is set).
 */
describeWith(['postgres'], 'vector index sync (real Postgres, recording index)', () => {
  let database: MigratedTestDatabase<'data'>;
  let db: SearchDb;
  let index: RecordingIndex;
  let syncer: VectorIndexSyncer;
  const ws = randomUUID();
  const user = randomUUID();
  let typeId: string;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_vector_sync', 'data');
    db = database.prisma;
    typeId = (await db.fragmentType.create({ data: { workspaceId: ws, key: 'note', name: 'Note' } })).id;
  });
  afterAll(() => database?.close());
  beforeEach(async () => {
    await db.$executeRaw`TRUNCATE data.fragments, data.fragment_chunks, data.vector_index_sync CASCADE`;
    index = new RecordingIndex();
    syncer = new VectorIndexSyncer(new VectorSyncRepository(db), index);
  });

  /** A fragment at `version`, embedded into `chunks` chunks of that version (as enrichment writes them). */
  async function fragment(chunks: number, version = 1): Promise<string> {
    const f = await db.fragment.create({
      data: {
        workspaceId: ws,
        fragmentTypeId: typeId,
        title: 't',
        content: 'c',
        createdBy: user,
        updatedBy: user,
        version,
      },
    });
    await embed(f.id, chunks, version);
    return f.id;
  }

  /** Replaces the chunks in one transaction, like the embedding step. */
  async function embed(fragmentId: string, chunks: number, version: number): Promise<void> {
    await db.$transaction([
      db.fragmentChunk.deleteMany({ where: { fragmentId } }),
      db.fragmentChunk.createMany({
        data: Array.from({ length: chunks }, (_, ordinal) => ({
          fragmentId,
          workspaceId: ws,
          ordinal,
          text: `chunk ${ordinal}`,
          embedding: [ordinal + 1, version, 0.5],
          version,
        })),
      }),
    ]);
  }

  const archive = (id: string) =>
    db.fragment.update({ where: { id }, data: { archivedAt: new Date(), version: { increment: 1 } } });

  it('writes the chunks of the fragment as Postgres has them, once: a redelivery changes nothing', async () => {
    const id = await fragment(2);
    expect(await syncer.syncFragment(id)).toBe('upserted');
    expect(index.points.get(id)).toEqual({
      workspaceId: ws,
      version: 1,
      chunks: [
        { chunkIndex: 0, vector: [1, 1, 0.5] },
        { chunkIndex: 1, vector: [2, 1, 0.5] },
      ],
    });
    expect(await syncer.syncFragment(id)).toBe('unchanged');
    expect(index.calls).toEqual([`upsert ${id}`]);
    const [row] = await db.$queryRaw<
      Array<{ version: number }>
    >`SELECT version FROM data.vector_index_sync WHERE fragment_id = ${id}::uuid`;
    expect(row?.version).toBe(1);
  });

  it('follows a new embedding run (new version, fewer chunks), whatever order the events come in', async () => {
    const id = await fragment(3);
    await syncer.syncFragment(id);
    await db.fragment.update({ where: { id }, data: { version: 2 } });
    await embed(id, 1, 2);
    // Two events (the old one redelivered late, the new one): both read the current chunks.
    expect(await syncer.syncFragment(id)).toBe('upserted');
    expect(await syncer.syncFragment(id)).toBe('unchanged');
    expect(index.points.get(id)).toEqual({
      workspaceId: ws,
      version: 2,
      chunks: [{ chunkIndex: 0, vector: [1, 2, 0.5] }],
    });
  });

  it('deletes the points of archived, deleted and chunkless fragments, and is idempotent about it', async () => {
    const archived = await fragment(1);
    const deleted = await fragment(1);
    const emptied = await fragment(1);
    for (const id of [archived, deleted, emptied]) await syncer.syncFragment(id);
    await archive(archived);
    await db.fragment.delete({ where: { id: deleted } });
    await db.fragmentChunk.deleteMany({ where: { fragmentId: emptied } });
    for (const id of [archived, deleted, emptied, archived]) expect(await syncer.syncFragment(id)).toBe('deleted');
    expect(index.points.size).toBe(0);
    expect(await db.$queryRaw<unknown[]>`SELECT 1 FROM data.vector_index_sync`).toHaveLength(0);
    // An embedding run finishing after the archive (late fragment.embedded) does not bring it back.
    await embed(archived, 2, 2);
    expect(await syncer.syncFragment(archived)).toBe('deleted');
    expect(index.points.has(archived)).toBe(false);
  });

  it('never interleaves two syncs of one fragment (the writes happen under a per-fragment lock)', async () => {
    const id = await fragment(1);
    let active = 0;
    let overlapped = false;
    const upsert = index.upsertFragment.bind(index);
    index.upsertFragment = async (...args) => {
      active++;
      if (active > 1) overlapped = true;
      await new Promise((r) => setTimeout(r, 50));
      await upsert(...args);
      active--;
    };
    const outcomes = await Promise.all([syncer.syncFragment(id), syncer.syncFragment(id), syncer.syncFragment(id)]);
    expect(overlapped).toBe(false);
    expect(outcomes.sort()).toEqual(['unchanged', 'unchanged', 'upserted']);
  });

  it('backfills what was embedded before, removes what was archived since, and a second run finds nothing to do', async () => {
    const before = await Promise.all([1, 2, 3, 1, 2].map((n) => fragment(n)));
    const synced = await fragment(1);
    await syncer.syncFragment(synced);
    const gone = await fragment(1);
    await syncer.syncFragment(gone);
    await archive(gone);
    const reembedded = await fragment(1);
    await syncer.syncFragment(reembedded);
    await embed(reembedded, 2, 1);
    const notEmbedded = await fragment(0);
    index.calls.length = 0;

    const reports: Array<[BackfillProgress, boolean]> = [];
    const result = await syncer.backfill({
      batchSize: 2,
      progressEvery: 3,
      onProgress: (p, done) => reports.push([p, done]),
    });
    expect(result).toMatchObject({ upserted: 6, deleted: 1, unchanged: 0, pending: 7 });
    expect(index.calls.sort()).toEqual(
      [...before, reembedded]
        .map((id) => `upsert ${id}`)
        .concat(`delete ${gone}`)
        .sort(),
    );
    expect([...index.points.keys()].sort()).toEqual([...before, synced, reembedded].sort());
    expect(index.points.has(notEmbedded)).toBe(false);
    // Progress every 3 fragments, then the final report.
    expect(reports.map(([p, done]) => [p.upserted + p.deleted, done])).toEqual([
      [3, false],
      [6, false],
      [7, true],
    ]);

    index.calls.length = 0;
    expect(await syncer.backfill()).toMatchObject({ upserted: 0, deleted: 0, pending: 0 });
    expect(index.calls).toEqual([]);
  });

  it('resumes a stopped backfill without redoing the synced part', async () => {
    const ids = await Promise.all(Array.from({ length: 7 }, () => fragment(1)));
    // shouldStop is asked before each fragment: this run stops after 4.
    const first = await syncer.backfill({ batchSize: 3, shouldStop: () => index.calls.length >= 4 });
    expect(first).toMatchObject({ upserted: 4, pending: 7 });
    const second = await syncer.backfill({ batchSize: 3 });
    expect(second).toMatchObject({ upserted: 3, pending: 3 });
    expect(index.calls).toHaveLength(7);
    expect([...index.points.keys()].sort()).toEqual([...ids].sort());
  });

  it('writes everything again when the index is empty (a new or wiped Qdrant) though the records say synced', async () => {
    const ids = await Promise.all([fragment(1), fragment(2)]);
    await syncer.backfill();
    const wiped = new RecordingIndex();
    const result = await new VectorIndexSyncer(new VectorSyncRepository(db), wiped).backfill();
    expect(result.upserted).toBe(2);
    expect([...wiped.points.keys()].sort()).toEqual([...ids].sort());
  });

  const event = (eventType: string, fragmentId: string): DomainEvent => ({
    id: randomUUID(),
    aggregateType: 'fragment',
    aggregateId: fragmentId,
    eventType,
    payload: { fragmentId, workspaceId: ws, version: 1 },
    headers: {},
    occurredAt: new Date().toISOString(),
  });

  /** The in-process bus's semantics under JetStream's name (durable consumers are per name there). */
  class JetStreamLikeBus extends InProcessEventBus {
    override readonly kind = 'jetstream' as 'in-process';
  }

  it('the worker (JetStream) consumes fragment.embedded and fragment.deleted, and backfills at start, retrying while the index is down', async () => {
    const early = await fragment(1);
    index.down = true;
    const worker = new VectorIndexSyncWorker(index, new VectorSyncRepository(db), loadConfig({}), silent);
    const bus = new JetStreamLikeBus();
    await worker.start(bus);
    // The backfill failed on the fragment embedded before the start. `later` is created only
    // then: a backfill that saw it too could fail on it first on every retry and never reach `early`.
    await expect.poll(() => index.refused.includes(early), { timeout: 10_000 }).toBe(true);
    const later = await fragment(2);
    await bus.publish(event('fragment.embedded', later));
    await expect.poll(() => index.refused.includes(later), { timeout: 10_000 }).toBe(true);
    expect(index.points.size).toBe(0);
    index.down = false;
    // The backfill retries (after 1 s) and the event is redelivered (after 2 s).
    await expect.poll(() => [...index.points.keys()].sort(), { timeout: 15_000 }).toEqual([early, later].sort());
    await worker.backfillDone();
    await archive(later);
    await bus.publish(event('fragment.deleted', later));
    await expect.poll(() => index.points.has(later), { timeout: 10_000 }).toBe(false);
    // An event type the worker does not take is left alone.
    await bus.publish(event('fragment.updated', early));
    await worker.onModuleDestroy();
    expect(index.calls.filter((c) => c.startsWith('delete'))).toEqual([`delete ${later}`]);
    await bus.close();
  });

  it('the worker (in-process bus) leaves fragment.deleted to other consumers and removes archived fragments by a periodic sweep', async () => {
    const kept = await fragment(1);
    const archived = await fragment(1);
    const worker = new VectorIndexSyncWorker(index, new VectorSyncRepository(db), loadConfig({}), silent);
    worker.sweepIntervalMs = 50;
    const bus = new InProcessEventBus();
    await worker.start(bus);
    await worker.backfillDone();
    expect([...index.points.keys()].sort()).toEqual([kept, archived].sort());
    await archive(archived);
    await bus.publish(event('fragment.deleted', archived));
    // fragment.deleted is still there for the next consumer of its type (webhooks, for instance).
    const later: string[] = [];
    await bus.subscribe(
      { consumer: 'webhooks-like', eventTypes: ['fragment.deleted'] },
      async ({ event: e }) => void later.push(e.aggregateId),
    );
    await expect.poll(() => later).toEqual([archived]);
    await expect.poll(() => index.points.has(archived), { timeout: 10_000 }).toBe(false);
    expect(index.points.has(kept)).toBe(true);
    await worker.onModuleDestroy();
    await bus.close();
  });

  it('with pgvector or exact cosine (nothing to write) the worker writes nothing and starts no backfill', async () => {
    const inPostgres = new RecordingIndex();
    Object.defineProperty(inPostgres, 'external', { value: false });
    const worker = new VectorIndexSyncWorker(inPostgres, new VectorSyncRepository(db), loadConfig({}), silent);
    const bus = new InProcessEventBus();
    const id = await fragment(1);
    await worker.start(bus);
    await bus.publish({
      id: randomUUID(),
      aggregateType: 'fragment',
      aggregateId: id,
      eventType: 'fragment.embedded',
      payload: { fragmentId: id },
      headers: {},
      occurredAt: new Date().toISOString(),
    });
    await worker.backfillDone();
    await worker.onModuleDestroy();
    expect(inPostgres.calls).toEqual([]);
    expect(await db.$queryRaw<unknown[]>`SELECT 1 FROM data.vector_index_sync`).toHaveLength(0);
    await bus.close();
  });
});
