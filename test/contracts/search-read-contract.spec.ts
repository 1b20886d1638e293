import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_POOL, migrate, startPGliteServer, type EmbeddedServer } from '@kw/platform-persistence';
import { migratedTestDatabase, type MigratedTestDatabase } from '../support/postgres.js';
import { describeWith } from '../support/services.js';

/**
 * The read contract of fragments with search (docs/search-listing-and-graph.md#the-read-contract-with-fragments):
 * the views of schema search_read, with exactly these columns and types. Fragments may change
 * its tables freely; a change that alters a view's shape fails here, loudly, and must be agreed
 * with search (which reads only these views).
 */
const CONTRACT: Record<string, Array<[column: string, type: string]>> = {
  fragments: [
    ['id', 'uuid'],
    ['workspace_id', 'uuid'],
    ['fragment_type_id', 'uuid'],
    ['title', 'text'],
    ['content', 'text'],
    ['summary', 'text'],
    ['tags', 'text[]'],
    ['key', 'text'],
    ['status', 'text'],
    ['created_via', 'text'],
    ['version', 'integer'],
    ['created_by', 'uuid'],
    ['updated_by', 'uuid'],
    ['created_at', 'timestamp with time zone'],
    ['updated_at', 'timestamp with time zone'],
    ['archived_at', 'timestamp with time zone'],
    ['search_document', 'tsvector'],
    ['search_length', 'integer'],
    ['tags_folded', 'text[]'],
  ],
  fragment_terms: [
    ['workspace_id', 'uuid'],
    ['lexeme', 'text'],
    ['fragment_id', 'uuid'],
    ['tf', 'real'],
    ['length', 'integer'],
  ],
  fragment_types: [
    ['id', 'uuid'],
    ['workspace_id', 'uuid'],
    ['key', 'text'],
  ],
  collections: [
    ['id', 'uuid'],
    ['workspace_id', 'uuid'],
  ],
  collection_fragments: [
    ['collection_id', 'uuid'],
    ['fragment_id', 'uuid'],
  ],
  fragment_chunks: [
    ['fragment_id', 'uuid'],
    ['workspace_id', 'uuid'],
    ['ordinal', 'integer'],
    ['embedding', 'real[]'],
    ['version', 'integer'],
    ['created_at', 'timestamp with time zone'],
  ],
  graph_entities: [
    ['id', 'uuid'],
    ['workspace_id', 'uuid'],
    ['kind', 'text'],
    ['name', 'text'],
    ['normalized_name', 'text'],
  ],
  graph_mentions: [
    ['entity_id', 'uuid'],
    ['fragment_id', 'uuid'],
  ],
  graph_relations: [
    ['workspace_id', 'uuid'],
    ['source_id', 'uuid'],
    ['target_id', 'uuid'],
    ['kind', 'text'],
    ['fragment_id', 'uuid'],
  ],
};

/**
 * Where pgvector is installed when the data plane migrates (always on the embedded database),
 * search_read.fragment_chunks also has the embedding as a vector (migration chunk_vectors).
 */
const STORED_VECTOR: [string, string] = ['embedding_vector', 'USER-DEFINED'];

async function viewColumns(pool: pg.Pool, view: string): Promise<Array<[string, string]>> {
  const { rows } = await pool.query<{ column: string; type: string }>(
    `SELECT column_name::text AS column,
            CASE WHEN data_type = 'ARRAY' THEN (SELECT format_type(a.atttypid, NULL)
                                                 FROM pg_attribute a
                                                WHERE a.attrelid = ('search_read.' || quote_ident(table_name))::regclass
                                                  AND a.attname = column_name)
                 ELSE data_type END AS type
       FROM information_schema.columns
      WHERE table_schema = 'search_read' AND table_name = $1
      ORDER BY ordinal_position`,
    [view],
  );
  return rows.map((r) => [r.column, r.type]);
}

async function vectorInstalled(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
  return rows.length > 0;
}

function contractOf(view: string, withVector: boolean): Array<[string, string]> {
  return view === 'fragment_chunks' && withVector ? [...CONTRACT[view]!, STORED_VECTOR] : CONTRACT[view]!;
}

describeWith(['postgres'], 'search read contract (views of schema search_read)', () => {
  let pool: pg.Pool;
  let database: MigratedTestDatabase<'data'>;

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_search_contract', 'data', 2);
    pool = database.pool;
  });
  afterAll(() => database?.close());

  it('has exactly the contract views', async () => {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT table_name::text AS name FROM information_schema.views WHERE table_schema = 'search_read' ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(Object.keys(CONTRACT).sort());
  });

  it.each(Object.keys(CONTRACT))('search_read.%s has the contract columns and types', async (view) => {
    expect(await viewColumns(pool, view)).toEqual(contractOf(view, await vectorInstalled(pool)));
  });

  it('keyword search plans the same through the view as on the table (the full-text index)', async () => {
    const plan = async (from: string) => {
      const client = await pool.connect();
      try {
        // An empty table would be scanned: ask for the plan the index gives.
        await client.query('SET enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (COSTS OFF) SELECT f.id FROM ${from} f, websearch_to_tsquery('english', 'kubernetes') q
            WHERE f.search_document @@ q`,
        );
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.query('RESET enable_seqscan');
        client.release();
      }
    };
    const throughView = await plan('search_read.fragments');
    expect(throughView).toContain('fragments_search_document_idx');
    // The same plan; only the alias the table is shown with differs (the view is inlined).
    expect(throughView).toEqual((await plan('data.fragments')).replace(/\bfragments f\b/g, 'fragments'));
  });
});

describe('search read contract on the embedded database (pgvector: the stored vector)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-search-contract-'));
  let server: EmbeddedServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPGliteServer({ dataDir });
    pool = new pg.Pool({ connectionString: server.connectionString, ...EMBEDDED_POOL });
    await migrate(pool, 'data');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('search_read.fragment_chunks has the contract columns and the embedding as a vector, kept in the row', async () => {
    expect(await vectorInstalled(pool)).toBe(true);
    expect(await viewColumns(pool, 'fragment_chunks')).toEqual(contractOf('fragment_chunks', true));
    const { rows } = await pool.query(
      `SELECT attstorage FROM pg_attribute WHERE attrelid = 'data.fragment_chunks'::regclass AND attname = 'embedding_vector'`,
    );
    expect(rows).toEqual([{ attstorage: 'm' }]);
  });

  it('stores an embedding the vector type cannot hold as NULL instead of refusing the chunk', async () => {
    const { rows } = await pool.query<{ v: string | null }>(
      `SELECT data.fragment_chunk_vector(e)::text AS v
         FROM (VALUES (1, '{0.5,-1}'::real[]), (2, '{}'), (3, '{NaN,1}'), (4, '{1,-Infinity}'), (5, NULL)) AS t(n, e)
        ORDER BY n`,
    );
    expect(rows.map((r) => r.v)).toEqual(['[0.5,-1]', null, null, null, null]);
  });
});
