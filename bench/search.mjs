// Search benchmark (run by bench/run.mjs with --search): loads generated fragments directly
// into PostgreSQL (10k; also 100k unless --quick), then measures, on the same data in the same
// run, GET /api/search (hybrid, through the gateway) against the raw SQL full-text query and
// the raw vector query the search component runs. Needs DATABASE_URL (a server where it may
// create a scratch database); skipped, and said so, without it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const WORDS = ('postgres index query vector search cluster kubernetes deploy coffee budget marketing campaign release roadmap incident outage latency cache '
  + 'memory graph entity fragment workspace token session invoice customer support backlog sprint design review testing benchmark python rust typescript '
  + 'network storage backup replica shard schema migration feature flag experiment metric dashboard alert pager onboarding hiring contract legal privacy').split(' ');
const QUERIES = ['postgres index', 'kubernetes deploy outage', 'coffee budget', 'vector search latency', 'customer support backlog', 'schema migration replica', 'privacy contract', 'rust benchmark'];

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), n: sorted.length };
}

async function timed(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

async function loadFragments(db, workspaceId, typeId, userId, total, embed) {
  const random = rng(42);
  const text = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  for (let offset = 0; offset < total; offset += 1000) {
    const rows = Array.from({ length: Math.min(1000, total - offset) }, () => ({ title: text(4), content: text(60), tags: [WORDS[Math.floor(random() * WORDS.length)]] }));
    const ids = rows.map(() => crypto.randomUUID());
    await db.query(
      `INSERT INTO data.fragments (id, workspace_id, fragment_type_id, title, content, tags, status, created_by, updated_by)
       SELECT id, $2, $3, title, content, ARRAY[tag], 'published', $4, $4 FROM unnest($1::uuid[], $5::text[], $6::text[], $7::text[]) AS r(id, title, content, tag)`,
      [ids, workspaceId, typeId, userId, rows.map((r) => r.title), rows.map((r) => r.content), rows.map((r) => r.tags[0])],
    );
    const vectors = rows.map((r) => `{${embed(`${r.title}\n${r.content}`).join(',')}}`);
    await db.query(
      `INSERT INTO data.fragment_chunks (fragment_id, workspace_id, ordinal, text, embedding, version)
       SELECT id, $2, 0, text, embedding::float4[], 1 FROM unnest($1::uuid[], $3::text[], $4::text[]) AS r(id, text, embedding)`,
      [ids, workspaceId, rows.map((r) => r.content), vectors],
    );
  }
  await db.query('ANALYZE data.fragments; ANALYZE data.fragment_chunks');
}

async function startPlatform(root, env) {
  // The platform's own log (warnings and a fatal reason, if any) is kept for a failed run.
  const logFile = path.join(tmpdir(), `kw-bench-search-${process.pid}.log`);
  const child = spawn(process.execPath, ['dist/apps/gateway/src/main.js'], { cwd: root, env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', openSync(logFile, 'w'), 'inherit'] });
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`bench: the platform exited (${code ?? signal}); its log: ${logFile}`);
  });
  const base = `http://127.0.0.1:${env.PORT}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error('bench: the platform exited');
    if (await fetch(`${base}/api/version`).then((r) => r.ok, () => false)) return { child, base };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('bench: the platform did not start');
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Runs the scenario; returns result rows for bench/run.mjs's report (or [] when skipped). */
export async function searchBenchmark({ root, quick, port }) {
  const { DATABASE_URL } = process.env;
  if (!DATABASE_URL) {
    console.error('bench: skipping the search scenario (set DATABASE_URL)');
    return [];
  }
  const { hashEmbedding } = await import(path.join(root, 'dist/libs/platform/ai/src/feature-hashing.js'));
  const results = [];
  // BENCH_SEARCH_SIZES=100000 measures one size only (e.g. to redo it).
  const sizes = process.env.BENCH_SEARCH_SIZES ? process.env.BENCH_SEARCH_SIZES.split(',').map(Number) : quick ? [10_000] : [10_000, 100_000];
  for (const size of sizes) {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const dbName = `kw_bench_search_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${dbName}"`);
    const dbUrl = new URL(DATABASE_URL);
    dbUrl.pathname = `/${dbName}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-bench-search-'));
    const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
    const { child, base } = await startPlatform(root, {
      PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: dbUrl.toString(), ADMIN_EMAIL: 'bench@example.test', ADMIN_PASSWORD: `pw-${randomBytes(12).toString('hex')}`, ADMIN_TOKEN: adminToken,
      RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_CREDENTIAL: '1000000000', RATE_LIMIT_PER_WORKSPACE: '1000000000',
      // Exact cosine over 100k chunks (no pgvector) takes longer than the default 10 s.
      SERVICE_TIMEOUT_MS: '120000',
    });
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    try {
      await db.connect();
      const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
      const ws = await (await fetch(`${base}/api/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: `bench ${size}` }) })).json();
      const workspaceId = ws.workspace?.id ?? ws.id;
      const types = await (await fetch(`${base}/api/workspaces/${workspaceId}/fragment-types`, { headers })).json();
      const typeId = types.items.find((t) => t.key === 'note').id;
      const userId = (await db.query(`SELECT created_by::text AS id FROM data.fragment_types WHERE id = $1`, [typeId]).catch(() => ({ rows: [] }))).rows[0]?.id ?? crypto.randomUUID();
      const started = performance.now();
      await loadFragments(db, workspaceId, typeId, userId, size, hashEmbedding);
      console.error(`bench: loaded ${size} fragments in ${Math.round(performance.now() - started)} ms`);
      const vectorExt = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).rowCount > 0;
      const count = quick ? 20 : size > 10_000 ? 40 : 100;
      const q = (i) => QUERIES[i % QUERIES.length];
      const api = await timed(count, async (i) => {
        const res = await fetch(`${base}/api/search?workspaceId=${workspaceId}&q=${encodeURIComponent(q(i))}&limit=20`, { headers });
        if (!res.ok) throw new Error(`bench: search answered ${res.status}: ${await res.text()}`);
        await res.json();
      });
      const doc = `data.fragment_search_document(f.title, f.tags, f.summary, f.content)`;
      const fts = await timed(count, (i) => db.query(
        `SELECT f.id, ts_rank(${doc}, q) AS rank FROM data.fragments f, websearch_to_tsquery('english', $2) q
          WHERE f.workspace_id = $1 AND f.archived_at IS NULL AND ${doc} @@ q ORDER BY rank DESC, f.id LIMIT 500`, [workspaceId, q(i)]));
      const vectorSql = vectorExt
        ? `SELECT fragment_id, max(1 - (embedding::vector <=> $2::vector)) AS s FROM data.fragment_chunks WHERE workspace_id = $1 GROUP BY fragment_id ORDER BY s DESC LIMIT 500`
        : `SELECT c.fragment_id, max((SELECT sum(x * y) FROM unnest(c.embedding, $2::float4[]) AS v(x, y))) AS s FROM data.fragment_chunks c WHERE c.workspace_id = $1 GROUP BY c.fragment_id ORDER BY s DESC LIMIT 500`;
      const vec = await timed(count, (i) => {
        const v = hashEmbedding(q(i));
        return db.query(vectorSql, [workspaceId, vectorExt ? `[${v.join(',')}]` : `{${v.join(',')}}`]);
      });
      const row = { fragments: size, queries: count, vectorIndex: vectorExt ? 'pgvector' : 'exact', api, rawFullText: fts, rawVector: vec };
      results.push(row);
      // Each size as soon as it is measured: a run stopped during the next size keeps it.
      console.error(`bench: search ${JSON.stringify(row)}`);
    } finally {
      await db.end().catch(() => undefined);
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await admin.end();
    }
  }
  return results;
}
