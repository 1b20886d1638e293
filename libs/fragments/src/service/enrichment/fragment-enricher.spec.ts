import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BuiltinAiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import type { DomainEvent } from '@kw/platform-outbox';
import type { DataPrismaClient } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../../test/support/postgres.js';
import { describeWith } from '../../../../../test/support/services.js';
import { ChunkFixture } from '../../../../../test/support/chunk-vectors.js';
import { EnrichmentRepository } from '../../persistence/enrichment.repository.js';
import { FragmentEnricher } from './fragment-enricher.js';

/** A model whose summaries Postgres refuses on every write (text may not hold NUL). */
class NulSummaries extends BuiltinAiProvider {
  override async summarize(): Promise<string> {
    return 'a summary with a \u0000 in it';
  }
}

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;

describeWith(['postgres'], 'enrichment whose results the database refuses', () => {
  const ws = randomUUID();
  let pool: pg.Pool;
  let db: DataPrismaClient;
  let database: MigratedTestDatabase<'data'>;
  let fixture: ChunkFixture;
  let enricher: FragmentEnricher;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_enrichment_refused', 'data');
    ({ pool, prisma: db } = database);
    fixture = new ChunkFixture(db);
    await fixture.addWorkspaces(ws);
    const config = { ENRICHMENT_MAX_ATTEMPTS: 3, ENRICHMENT_RETRY_BASE_MS: 1 } as AppConfig;
    enricher = new FragmentEnricher(new EnrichmentRepository(db, { pool }), new NulSummaries(), config, quiet);
  });
  afterAll(() => database?.close());

  it('is redelivered until the attempts run out, then publishes the fragment with those steps failed', async () => {
    const fragmentId = await fixture.fragment([[1, 0, 0]], ws);
    await db.fragment.update({ where: { id: fragmentId }, data: { status: 'processing' } });
    const event: DomainEvent = {
      id: randomUUID(),
      aggregateType: 'fragment',
      aggregateId: fragmentId,
      eventType: 'fragment.created',
      payload: { fragmentId, workspaceId: ws, version: 1, needs: ['summary', 'tags', 'embedding', 'graph'] },
      headers: {},
      occurredAt: new Date().toISOString(),
    };
    const read = () => db.fragment.findUniqueOrThrow({ where: { id: fragmentId } });

    // Deliveries 1 and 2 fail as a dropped connection would: redelivered, nothing written.
    for (const delivery of [1, 2]) await expect(enricher.handle(event, delivery)).rejects.toThrow();
    expect((await read()).status).toBe('processing');

    await enricher.handle(event, 3);
    const done = await read();
    expect(done.status).toBe('published');
    expect(done.summary).toBeNull();
    const steps = done.enrichment as Record<string, { state: string; error?: string; version?: number }>;
    for (const step of ['summary', 'tags', 'embedding', 'graph'])
      expect(steps[step]).toMatchObject({ state: 'failed', error: 'its result could not be stored', version: 1 });
    // The event counts as processed: a fourth delivery changes nothing.
    await enricher.handle(event, 4);
    expect((await read()).enrichment).toEqual(done.enrichment);
  });
});
