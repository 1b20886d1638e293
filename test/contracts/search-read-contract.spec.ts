import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '@kw/platform-persistence';
import { createTestDatabase } from '../support/postgres.js';
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

describeWith(['postgres'], 'search read contract (views of schema search_read)', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase('kw_search_contract');
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    await migrate(pool, 'data');
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });

  it('has exactly the contract views', async () => {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT table_name::text AS name FROM information_schema.views WHERE table_schema = 'search_read' ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(Object.keys(CONTRACT).sort());
  });

  it.each(Object.keys(CONTRACT))('search_read.%s has the contract columns and types', async (view) => {
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
    expect(rows.map((r) => [r.column, r.type])).toEqual(CONTRACT[view]);
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
