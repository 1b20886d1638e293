// 5. Search: generated Markdown notes (bench/corpus.mjs) are loaded straight into PostgreSQL
// as enrichment would leave them (published, summary, tags, chunks with built-in embeddings),
// then, on the same data in the same run, sequential GET /api/search (hybrid, embedded mode
// on Postgres) is timed against the two raw SQL queries the search component runs: the
// full-text query and the vector query. Each size gets its own scratch database.
import path from 'node:path';
import pg from 'pg';
import { logTail, quick, root, scratchDatabase, timed } from '../lib.mjs';
import { notes, passageQueries, queries, sentenceQueries, vocabulary } from '../corpus.mjs';
import { startEmbedded } from '../platforms.mjs';

/** The raw queries' p50s summed over the API's p50: the API should add little to the SQL it runs. */
// Issue 10's goal: search p95 at most 2x the raw full-text query alone (ratio = full-text p95 / API p95).
export const TARGET = 0.5;
const BATCH = 1000;
/** The workspaces of the bench account in global search's row: the loaded one and empty ones. */
const GLOBAL_WORKSPACES = 5;

/**
 * Agentic search (POST /api/fragments/agentic-search, 10 leads) with the same questions, against
 * the same raw full-text times: it runs the workspace search and BM25 with the graph's words, then
 * the graph, so it costs more than one search, but should stay within the same order.
 */
async function agenticRow(api, workspaceId, list, fullText, size) {
  const times = await timed(list.length, async (i) => {
    const res = await fetch(`${api.base}/api/fragments/agentic-search`, {
      method: 'POST',
      headers: { ...api.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, query: list[i] }),
    });
    if (!res.ok) throw new Error(`agentic search answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  });
  return {
    scenario: `POST /api/fragments/agentic-search p95 at ${size / 1000}k fragments, 10-30-word questions, vs the raw full-text SQL alone`,
    unit: 'ms p95',
    platform: { p50: times.p50, p95: times.p95, p99: times.p99 },
    baseline: { p50: fullText.p50, p95: fullText.p95, p99: fullText.p99 },
    ratio: fullText.p95 / times.p95,
    target: AGENTIC_TARGET,
    note: `${list.length} sequential queries, 10 leads each, built-in provider (pattern entities); the questions' vectors kept from the search row above (cheap to make with the built-in provider)`,
  };
}

/**
 * Global search (GET /api/search/global) with the same questions, against the same raw full-text
 * times. The caller has `workspaces` workspaces (the loaded one and empty ones): global search
 * lists them, checks each (search:read, and files:read for its files), searches fragments over
 * all of them and ranks their files by the same words, in parallel.
 */
async function globalRow(api, list, fullText, size, workspaces) {
  const times = await timed(list.length, async (i) => {
    const res = await fetch(`${api.base}/api/search/global?q=${encodeURIComponent(list[i])}&limit=20`, {
      headers: api.auth,
    });
    if (!res.ok) throw new Error(`global search answered ${res.status}: ${await res.text()}`);
    const body = await res.json();
    if (body.workspaceCount !== workspaces) throw new Error(`global search read ${body.workspaceCount} workspaces`);
  });
  return {
    scenario: `GET /api/search/global p95 at ${size / 1000}k fragments in ${workspaces} workspaces, 10-30-word questions, vs the raw full-text SQL alone (one workspace)`,
    unit: 'ms p95',
    platform: { p50: times.p50, p95: times.p95, p99: times.p99 },
    baseline: { p50: fullText.p50, p95: fullText.p95, p99: fullText.p99 },
    ratio: fullText.p95 / times.p95,
    target: TARGET,
    note: `${list.length} sequential queries; the fragments of one workspace, ${workspaces - 1} empty ones beside it, no files`,
  };
}

/**
 * The structured listing (POST /api/fragments/list): a tag filter (the first word of each
 * keyword query, so common, mid and rare tags), newest change first, a page of 50 with the
 * default fields and the count of all matches, against the same two statements the listing
 * sends, run directly on the same data: what the API adds to its SQL.
 */
async function listingRow(api, db, workspaceId, list, size) {
  const tags = list.map((q) => q.split(' ')[0]);
  const body = (tag) =>
    JSON.stringify({ workspaceId, filter: `tags has '${tag}'`, orderBy: [{ field: 'updatedAt', direction: 'desc' }] });
  const totals = [];
  const times = await timed(tags.length, async (i) => {
    const res = await fetch(`${api.base}/api/fragments/list`, {
      method: 'POST',
      headers: { ...api.auth, 'content-type': 'application/json' },
      body: body(tags[i]),
    });
    if (!res.ok) throw new Error(`listing answered ${res.status}: ${await res.text()}`);
    totals.push((await res.json()).totalCount);
  });
  const raw = await timed(tags.length, async (i) => {
    await db.query(RAW_LISTING_PAGE, [workspaceId, tags[i]]);
    await db.query(RAW_LISTING_COUNT, [workspaceId, tags[i]]);
  });
  return {
    scenario: `POST /api/fragments/list p95 at ${size / 1000}k fragments, a tag filter, newest first, a page of 50 and the count, vs its two statements alone`,
    unit: 'ms p95',
    platform: { p50: times.p50, p95: times.p95, p99: times.p99 },
    baseline: { p50: raw.p50, p95: raw.p95, p99: raw.p99 },
    ratio: raw.p95 / times.p95,
    target: TARGET,
    note: `${tags.length} sequential listings; matches per tag ${spread(totals).min}-${spread(totals).max}`,
  };
}

const LISTING_MATCH = `FROM search_read.fragments f JOIN search_read.fragment_types ft ON ft.id = f.fragment_type_id
  WHERE f.workspace_id = $1 AND f.archived_at IS NULL
    AND f.tags_folded @> ARRAY[lower($2)]::text[]`;
const RAW_LISTING_PAGE = `SELECT f.id, f.title, ft.key AS type, f.tags, f.status, f.created_at, f.updated_at ${LISTING_MATCH}
  ORDER BY f.updated_at DESC NULLS FIRST, f.id LIMIT 50`;
const RAW_LISTING_COUNT = `SELECT count(*) ${LISTING_MATCH}`;

const SHAPE_LABELS = {
  keywords: '1-2 keywords',
  sentences: '10-30-word questions',
  passages: '6,000-8,000-character passages',
};

/** Agentic search runs about three retrievals and the graph: a third of the raw query's speed. */
export const AGENTIC_TARGET = 0.33;

/**
 * Sizes and sequential queries per size. Query shapes cycle common, mid, rare, then pairs
 * (corpus.mjs): 3 queries are one single term of each frequency band.
 * BENCH_SEARCH_SIZES=100000 and BENCH_SEARCH_QUERIES=7 override them.
 */
export function searchPlan() {
  const sizes = process.env.BENCH_SEARCH_SIZES?.split(',').map(Number) ?? (quick ? [10_000] : [10_000, 100_000]);
  const count = (size) => Number(process.env.BENCH_SEARCH_QUERIES ?? (quick || size > 10_000 ? 3 : 7));
  return sizes.map((size) => ({ size, count: count(size) }));
}

/**
 * The baseline: the full-text query a Postgres expert would write for a page of 20 on this
 * schema: the stored weighted document (GIN-indexed), the words or-ed (an AND of every word of a
 * sentence matches almost nothing), ts_rank, on analysed tables. Also counts the matches.
 */
const RAW_FULL_TEXT = `
  WITH q AS (SELECT replace(plainto_tsquery('english', $2)::text, '&', '|')::tsquery AS q),
       hits AS (SELECT f.id, ts_rank(f.search_document, q.q) AS rank
                  FROM data.fragments f, q
                 WHERE f.workspace_id = $1 AND f.archived_at IS NULL AND f.search_document @@ q.q)
  SELECT id, rank, count(*) OVER () AS hits FROM hits ORDER BY rank DESC, id LIMIT 20`;
// The statements of the vector index the search component picks (pgvector-index.ts, or the
// exact cosine the in-process index replaced), for reference.
const PGVECTOR_SQL = `SELECT fragment_id, max(1 - (embedding::vector <=> $1::vector)) AS s FROM data.fragment_chunks WHERE workspace_id = ANY($2::uuid[]) GROUP BY fragment_id ORDER BY s DESC LIMIT 500`;
const EXACT_VECTOR_SQL = `WITH scored AS (
     SELECT c.fragment_id, (SELECT sum(x * y) / nullif(sqrt(sum(x * x)) * sqrt(sum(y * y)), 0) FROM unnest(c.embedding, $1::float4[]) AS v(x, y))::float8 AS similarity
       FROM data.fragment_chunks c JOIN data.fragments f ON f.id = c.fragment_id AND f.version = c.version AND f.archived_at IS NULL
      WHERE c.workspace_id = ANY($2::uuid[]) AND cardinality(c.embedding) = 384)
   SELECT fragment_id, max(similarity) AS similarity FROM scored GROUP BY fragment_id HAVING max(similarity) >= 0.1 ORDER BY similarity DESC, fragment_id LIMIT 500`;

const vectorText = (v) => `{${v.map((x) => Math.round(x * 1e6) / 1e6).join(',')}}`;

export async function loadFragments(db, { workspaceId, typeId, userId, total, chunkText, embed, vocab }) {
  const gen = notes({ seed: 5, vocab });
  let chunks = 0;
  for (let offset = 0; offset < total; offset += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, total - offset) }, () => ({
      id: crypto.randomUUID(),
      ...gen.next(),
    }));
    await db.query(
      `INSERT INTO data.fragments (id, workspace_id, fragment_type_id, title, content, summary, summary_source, tags, status, created_by, updated_by)
       SELECT id, $2, $3, title, content, summary, 'ai', ARRAY[tag1, tag2], 'published', $4, $4
         FROM unnest($1::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) AS r(id, title, content, summary, tag1, tag2)`,
      [
        rows.map((r) => r.id),
        workspaceId,
        typeId,
        userId,
        rows.map((r) => r.title),
        rows.map((r) => r.content),
        rows.map((r) => r.summary),
        rows.map((r) => r.tags[0]),
        rows.map((r) => r.tags[1]),
      ],
    );
    // Chunks as the embedding step makes them: title + content, split by the platform's chunker.
    const ids = [];
    const ordinals = [];
    const texts = [];
    const vectors = [];
    for (const r of rows) {
      chunkText(`${r.title}\n\n${r.content}`).forEach((text, ordinal) => {
        ids.push(r.id);
        ordinals.push(ordinal);
        texts.push(text);
        vectors.push(vectorText(embed(text)));
      });
    }
    chunks += ids.length;
    await db.query(
      `INSERT INTO data.fragment_chunks (fragment_id, workspace_id, ordinal, text, embedding, version)
       SELECT id, $2, ordinal, text, embedding::float4[], 1 FROM unnest($1::uuid[], $3::int[], $4::text[], $5::text[]) AS r(id, ordinal, text, embedding)`,
      [ids, workspaceId, ordinals, texts, vectors],
    );
  }
  await db.query('ANALYZE data.fragments; ANALYZE data.fragment_terms; ANALYZE data.fragment_chunks');
  return chunks;
}

/** One size: a scratch database, an embedded platform on it, the load, the three timings. */
export async function searchScenario({ size, count }, { memory }) {
  const { hashEmbedding } = await import(path.join(root, 'dist/libs/platform/ai/src/feature-hashing.js'));
  const { chunkText } = await import(path.join(root, 'dist/libs/platform/ai/src/chunking.js'));
  const databaseUrl = await scratchDatabase(`search${size}`);
  // Exact cosine over 100k+ chunks (no pgvector) takes longer than the default 10 s.
  const platform = await startEmbedded({
    name: `search-${size}`,
    env: { DATABASE_URL: databaseUrl, SERVICE_TIMEOUT_MS: '120000' },
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { api } = platform;
    const { workspaceId, typeId } = await api.workspace(`bench search ${size}`);
    // The admin (embedded mode keeps both planes in one database).
    const userId =
      (await db.query(`SELECT id::text FROM control.users LIMIT 1`).catch(() => ({ rows: [] }))).rows[0]?.id ??
      crypto.randomUUID();
    // Global search reads every workspace of the caller: a few empty ones beside the loaded one.
    for (let i = 1; i < GLOBAL_WORKSPACES; i++) await api.workspace(`bench search ${size} beside ${i}`);
    const vocab = vocabulary();
    const started = performance.now();
    const chunks = await loadFragments(db, {
      workspaceId,
      typeId,
      userId,
      total: size,
      chunkText,
      embed: hashEmbedding,
      vocab,
    });
    const loadSeconds = +((performance.now() - started) / 1000).toFixed(1);
    console.error(`bench: search: loaded ${size} fragments (${chunks} chunks) in ${loadSeconds} s`);

    const shapes = [
      { shape: 'keywords', list: queries(count, { vocab }) },
      { shape: 'sentences', list: sentenceQueries(count, { vocab }) },
      { shape: 'passages', list: passageQueries(count, { vocab }) },
    ];
    // The first query of a workspace loads what the vector index keeps in memory (without
    // pgvector): timed on its own and reported, then the steady state is measured.
    const coldStarted = performance.now();
    const cold = await fetch(
      `${api.base}/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(shapes[0].list[0])}&limit=20`,
      { headers: api.auth },
    );
    if (!cold.ok) throw new Error(`search answered ${cold.status}: ${await cold.text()}`);
    await cold.arrayBuffer();
    const coldMs = Math.round(performance.now() - coldStarted);
    const pgvector = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).rowCount > 0;
    memory.sample(`embedded on Postgres, after search at ${size / 1000}k`, platform.child.pid);
    const rows = [];
    for (const { shape, list } of shapes) {
      const matches = [];
      const apiTimes = await timed(count, async (i) => {
        const res = await fetch(
          `${api.base}/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(list[i])}&limit=20`,
          { headers: api.auth },
        );
        if (!res.ok) throw new Error(`search answered ${res.status}: ${await res.text()}`);
        matches.push((await res.json()).total);
      });
      const keywordHits = [];
      const fullText = await timed(count, async (i) => {
        const { rows: hits } = await db.query(RAW_FULL_TEXT, [workspaceId, list[i]]);
        keywordHits.push(hits[0]?.hits ?? 0);
      });
      const vector = await timed(count, (i) => {
        const v = hashEmbedding(list[i]);
        return db.query(pgvector ? PGVECTOR_SQL : EXACT_VECTOR_SQL, [
          pgvector ? `[${v.join(',')}]` : `{${v.join(',')}}`,
          [workspaceId],
        ]);
      });
      const row = {
        scenario: `GET /api/search (hybrid) p95 at ${size / 1000}k fragments, ${SHAPE_LABELS[shape]}, vs the raw full-text SQL alone`,
        unit: 'ms p95',
        platform: { p50: apiTimes.p50, p95: apiTimes.p95, p99: apiTimes.p99 },
        baseline: { p50: fullText.p50, p95: fullText.p95, p99: fullText.p99 },
        ratio: fullText.p95 / apiTimes.p95,
        target: TARGET,
        note: `${count} sequential queries after one cold query (${coldMs} ms), ${pgvector ? 'pgvector' : 'in-process vector index (no pgvector)'}; loaded ${chunks} chunks in ${loadSeconds} s`,
        search: {
          shape,
          fragments: size,
          chunks,
          queries: count,
          vectorIndex: pgvector ? 'pgvector' : 'memory',
          loadSeconds,
          coldQueryMs: coldMs,
          api: apiTimes,
          rawFullText: fullText,
          rawVector: vector,
          // How selective the queries were: full-text hits and fused totals.
          keywordHits: spread(keywordHits),
          apiTotalCount: spread(matches),
          examples: list.slice(0, 7).map((q, i) => ({
            q: q.length > 200 ? `${q.slice(0, 200)}… (${q.length} characters)` : q,
            keywordHits: keywordHits[i],
          })),
        },
      };
      console.error(`bench: search: ${JSON.stringify(row.search)}`);
      rows.push(row);
      if (shape === 'sentences') {
        rows.push(await agenticRow(api, workspaceId, list, fullText, size));
        rows.push(await globalRow(api, list, fullText, size, GLOBAL_WORKSPACES));
      }
    }
    // Last, so the letters of the rows before it stay those of earlier reports.
    rows.push(await listingRow(api, db, workspaceId, shapes[0].list, size));
    return rows;
  } catch (err) {
    const logged = logTail(platform.child, 400)
      .split('\n')
      .filter((l) => /"level":"(warn|error|fatal)"|Error/.test(l))
      .slice(-10)
      .join('\n');
    throw new Error(`${err.message}\nthe platform's last warnings and errors:\n${logged}`, { cause: err });
  } finally {
    await db.end().catch(() => undefined);
    await platform.stop();
  }
}

function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], p50: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
}
