import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GraphExtraction } from '@kw/platform-ai';
import type { DataPrismaClient } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { ChunkFixture } from '../../../../test/support/chunk-vectors.js';
import { EnrichmentRepository } from './enrichment.repository.js';

describeWith(['postgres'], 'enrichment writes (plain pg transaction)', () => {
  const ws = randomUUID();
  let pool: pg.Pool;
  let db: DataPrismaClient;
  let database: MigratedTestDatabase<'data'>;
  let fixture: ChunkFixture;
  let repository: EnrichmentRepository;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_enrichment_writes', 'data');
    ({ pool, prisma: db } = database);
    fixture = new ChunkFixture(db);
    await fixture.addWorkspaces(ws);
    repository = new EnrichmentRepository(db, { pool });
  });
  afterAll(() => database?.close());

  const graph: GraphExtraction = {
    entities: [
      { kind: 'name', name: 'Ada Lovelace' },
      { kind: 'technology', name: 'Engine' },
    ],
    relations: [
      {
        source: { kind: 'name', name: 'Ada Lovelace' },
        target: { kind: 'technology', name: 'Engine' },
        kind: 'uses',
      },
    ],
  };
  const write = (fragmentId: string, eventId = randomUUID()) =>
    repository.writeResults(
      'test-consumer',
      eventId,
      { id: fragmentId, workspaceId: ws },
      1,
      { summary: { state: 'done' } },
      () => [
        { step: 'summary', summary: 'A short summary.' },
        { step: 'tags', tags: ['alpha', 'beta'] },
        { step: 'graph', graph },
      ],
    );
  const mentions = async (fragmentId: string) =>
    (
      await pool.query(
        `SELECT e.normalized_name AS name FROM data.graph_mentions m JOIN data.graph_entities e ON e.id = m.entity_id WHERE m.fragment_id = $1 ORDER BY 1`,
        [fragmentId],
      )
    ).rows.map((r) => r.name);

  it('writes the summary, tags and graph, publishes, and records the event once', async () => {
    const id = await fixture.fragment([[1, 0, 0]], ws);
    const eventId = randomUUID();
    await write(id, eventId);
    const row = await db.fragment.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      summary: 'A short summary.',
      summarySource: 'ai',
      tags: ['alpha', 'beta'],
      status: 'published',
    });
    expect(row.enrichment).toMatchObject({ summary: { state: 'done' } });
    expect(await mentions(id)).toEqual(['ada lovelace', 'engine']);
    // A second delivery of the same event writes nothing.
    await db.fragment.update({ where: { id }, data: { summary: 'changed since' } });
    await write(id, eventId);
    expect((await db.fragment.findUniqueOrThrow({ where: { id } })).summary).toBe('changed since');
  });

  it('links an entity that another transaction inserted and committed while this one waited for it', async () => {
    const id = await fixture.fragment([[1, 0, 0]], ws);
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO data.graph_entities (workspace_id, kind, name, normalized_name) VALUES ($1, 'name', 'Grace Hopper', 'grace hopper')`,
        [ws],
      );
      const writing = repository.writeResults('test-consumer', randomUUID(), { id, workspaceId: ws }, 1, {}, () => [
        { step: 'graph', graph: { entities: [{ kind: 'name', name: 'Grace Hopper' }], relations: [] } },
      ]);
      // The INSERT of the same entity now waits for this transaction; its snapshot predates the commit.
      await new Promise((r) => setTimeout(r, 300));
      await other.query('COMMIT');
      await writing;
    } finally {
      other.release();
    }
    expect(await mentions(id)).toEqual(['grace hopper']);
  });
});
