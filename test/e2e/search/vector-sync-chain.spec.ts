import { randomUUID } from 'node:crypto';
import { AccountLimits, LimitNotices } from '@kw/platform-entitlements';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAiProvider } from '@kw/platform-ai';
import type { RequestContext } from '@kw/platform-context';
import { loadConfig } from '@kw/platform-config';
import { InProcessEventBus, OutboxRelay } from '@kw/platform-outbox';
import { createPrismaClient, migrate, type DataPrismaClient } from '@kw/platform-persistence';
import { FRAGMENT_EMBEDDED_EVENT } from '@kw/contracts';
import { EnrichmentRepository } from '../../../libs/fragments/src/persistence/enrichment.repository.js';
import { FragmentTypesRepository } from '../../../libs/fragments/src/persistence/fragment-types.repository.js';
import { FragmentsRepository } from '../../../libs/fragments/src/persistence/fragments.repository.js';
import { ensureDefaultTypes } from '../../../libs/fragments/src/service/default-types.js';
import {
  ENRICHMENT_CONSUMER,
  ENRICHMENT_EVENTS,
} from '../../../libs/fragments/src/service/enrichment/enrichment-state.js';
import { FragmentEnricher } from '../../../libs/fragments/src/service/enrichment/fragment-enricher.js';
import { FragmentsHandlers } from '../../../libs/fragments/src/service/fragments.handlers.js';
import type { WorkspaceGate } from '../../../libs/fragments/src/service/workspace-gate.js';
import type { IndexedChunk, VectorIndexSync } from '../../../libs/search/src/service/vector/vector-index.js';
import { VectorIndexSyncWorker } from '../../../libs/search/src/events/vector-sync.worker.js';
import { VectorSyncRepository } from '../../../libs/search/src/persistence/vector-sync.repository.js';
import { createTestDatabase } from '../../support/postgres.js';
import { describeWith } from '../../support/services.js';

const USER = randomUUID();
const WS = randomUUID();
const context = { requestId: 'req-vector-sync', auth: { userId: USER } } as unknown as RequestContext;
const gate = {
  authorize: async (_c: RequestContext, workspaceId: string) => ({
    workspaceId,
    userId: USER,
    relation: 'owner',
    enrichment: { summaries: true, tags: true },
  }),
} as unknown as WorkspaceGate;
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

/** What an external vector index would hold (the Qdrant adapter itself: search-qdrant.spec.ts). */
class RecordingIndex implements VectorIndexSync {
  readonly external = true;
  readonly points = new Map<string, { workspaceId: string; version: number; chunks: IndexedChunk[] }>();
  async upsertFragment(
    workspaceId: string,
    fragmentId: string,
    version: number,
    chunks: IndexedChunk[],
  ): Promise<void> {
    this.points.set(fragmentId, { workspaceId, version, chunks });
  }
  async deleteFragment(fragmentId: string): Promise<void> {
    this.points.delete(fragmentId);
  }
  async deleteWorkspace(): Promise<void> {
    throw new Error('not used by this test');
  }
  async isEmpty(): Promise<boolean> {
    return this.points.size === 0;
  }
}

/**
 * The whole chain with the real pieces but Qdrant: a fragment created by the fragments service
 * -> outbox -> relay -> bus -> enrichment (built-in embeddings), whose embedding step writes
 * the internal `fragment.embedded` event with the chunks -> the search component's sync worker
 * -> the index; archiving it (`fragment.deleted`) removes it from the index.
 */
describeWith(['postgres'], 'external vector index fed from fragment events (real Postgres)', () => {
  let drop: () => Promise<void>;
  let pool: pg.Pool;
  let db: DataPrismaClient;
  let relay: OutboxRelay;
  let bus: InProcessEventBus;
  let worker: VectorIndexSyncWorker;
  let stopEnrichment: () => Promise<void>;
  const index = new RecordingIndex();
  let handlers: FragmentsHandlers;
  let typeId: string;

  beforeAll(async () => {
    const database = await createTestDatabase('kw_vector_chain');
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    await migrate(pool, 'data');
    db = createPrismaClient('data', pool);
    const config = loadConfig({ ENRICHMENT_RETRY_BASE_MS: '10' });
    const pgDatabase = {
      pool,
      connectionString: database.url,
      close: async () => undefined,
      stopServer: async () => undefined,
    };
    const types = new FragmentTypesRepository(db, pgDatabase);
    // No PLANS: no plan limits, so neither ever calls another component.
    handlers = new FragmentsHandlers(
      new FragmentsRepository(db, pgDatabase),
      types,
      gate,
      config,
      new AccountLimits(null as never, undefined),
      new LimitNotices(null as never),
    );
    await ensureDefaultTypes(types, WS);
    typeId = (await db.fragmentType.findFirstOrThrow({ where: { workspaceId: WS, key: 'note' } })).id;
    bus = new InProcessEventBus();
    const enricher = new FragmentEnricher(
      new EnrichmentRepository(db, { pool }),
      createAiProvider(config),
      config,
      silent,
    );
    const enrichment = await bus.subscribe(
      { consumer: ENRICHMENT_CONSUMER, eventTypes: ENRICHMENT_EVENTS },
      async ({ event }) => enricher.handle(event),
    );
    stopEnrichment = () => enrichment.stop();
    worker = new VectorIndexSyncWorker(index, new VectorSyncRepository(db), config, silent);
    // The in-process bus: removals come from the sweep (fragment.deleted is left to webhooks).
    worker.sweepIntervalMs = 100;
    await worker.start(bus);
    relay = new OutboxRelay(pool, bus, silent, { pollIntervalMs: 20 });
    relay.start();
  });
  afterAll(async () => {
    await relay?.stop();
    await worker?.onModuleDestroy();
    await stopEnrichment?.();
    await bus?.close();
    await db?.$disconnect();
    await pool?.end();
    await drop?.();
  });

  const create = async (title: string, content: string) =>
    (
      await handlers.create(
        {
          workspaceId: WS,
          fragmentTypeId: typeId,
          title,
          content,
          tagsSupplied: false,
          tags: [],
          enhanceTags: false,
          createdVia: 'api',
        } as never,
        context,
      )
    ).fragment!;

  it('a created fragment reaches the index once embedded; an edit replaces its chunks; archiving removes it', async () => {
    const f = await create('Espresso', 'Brewing espresso at 93 degrees with a fine grind.');
    await expect.poll(() => index.points.get(f.id!)?.version, { timeout: 20_000 }).toBe(1);
    const chunks = await db.fragmentChunk.findMany({ where: { fragmentId: f.id! }, orderBy: { ordinal: 'asc' } });
    expect(index.points.get(f.id!)).toEqual({
      workspaceId: WS,
      version: 1,
      chunks: chunks.map((c) => ({ chunkIndex: c.ordinal, vector: c.embedding })),
    });
    // The event is internal, written with the chunks: one per embedding run.
    const embedded = await db.outboxEvent.findMany({
      where: { aggregateId: f.id!, eventType: FRAGMENT_EMBEDDED_EVENT },
    });
    expect(embedded.map((e) => e.payload)).toEqual([
      {
        fragmentId: f.id,
        workspaceId: WS,
        version: 1,
        chunks: chunks.length,
        createdBy: USER,
        generated: expect.any(Array),
        occurredAt: expect.any(String),
      },
    ]);

    await handlers.update(
      {
        fragmentId: f.id,
        content: 'Cold brew steeps for twelve hours.',
        tagsSupplied: false,
        tags: [],
        operations: [],
        expectedVersion: 1,
      } as never,
      context,
    );
    await expect.poll(() => index.points.get(f.id!)?.version, { timeout: 20_000 }).toBe(2);
    const [chunk] = await db.fragmentChunk.findMany({ where: { fragmentId: f.id! } });
    expect(index.points.get(f.id!)!.chunks[0]!.vector).toEqual(chunk!.embedding);

    await handlers.delete({ fragmentId: f.id, permanent: false } as never, context);
    await expect.poll(() => index.points.has(f.id!), { timeout: 20_000 }).toBe(false);
    // The point goes inside the sync's transaction; its record goes when that commits.
    const synced = async () =>
      (await db.$queryRaw<unknown[]>`SELECT 1 FROM data.vector_index_sync WHERE fragment_id = ${f.id}::uuid`).length;
    await expect.poll(synced, { timeout: 5_000 }).toBe(0);
  });
});
