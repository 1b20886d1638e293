#!/usr/bin/env node
// The benchmark suite: each scenario measures the platform and a baseline doing the same
// work, in the same run, on this machine, and reports the ratio (absolute numbers on a shared
// 2-core machine are noise; ratios are not). Benchmarks never fail: no thresholds here.
//
//   npm run bench              default durations
//   npm run bench -- --quick   a short run that proves the suite works (CI)
//   npm run bench -- --search  also the search scenario (bench/search.mjs; needs DATABASE_URL)
// NATS scenarios need NATS_URL and DATABASE_URL; they are skipped (and said so) without them.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { mcpVsRest } from './mcp.mjs';
import { searchBenchmark } from './search.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const DURATION = quick ? 3 : 15;
const CONNECTIONS = 16;
/** The load generator is one address: lift the per-address rate limit for the measured platform. */
const UNLIMITED = { RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_CREDENTIAL: '1000000000', RATE_LIMIT_PER_WORKSPACE: '1000000000' };

function spawnLine(args, env, match) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        const found = match(line);
        if (found) {
          clearTimeout(timer);
          child.stdout.removeAllListeners('data');
          child.stdout.resume();
          resolve({ child, value: found });
          return;
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function load(url, options = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

const results = [];
const report = (scenario, subject, baseline, note) => {
  results.push({ scenario, subject, baseline, ratio: +(subject.rps / baseline.rps).toFixed(3), note });
};

/** A free TCP port on loopback. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls until the URL answers 200 (the platform logs at warn, so no "ready" line to wait for). */
async function waitFor(url, init) {
  for (let i = 0; i < 480; i++) {
    const res = await fetch(url, init).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200`);
}

async function gatewayVsFastify() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-bench-'));
  const port = await freePort();
  const platform = spawn(process.execPath, ['dist/apps/gateway/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...UNLIMITED },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(`http://127.0.0.1:${port}/api/version`);
  const bare = await spawnLine(['bench/baselines/bare-fastify.mjs', 'version'], {}, (l) => (/^\d+$/.test(l.trim()) ? l.trim() : undefined));
  try {
    const subject = await load(`http://127.0.0.1:${port}/api/version`);
    const baseline = await load(`http://127.0.0.1:${bare.value}/api/version`);
    report('gateway route vs bare Fastify (GET /api/version)', subject, baseline, 'embedded mode; request id, access log, metrics and error mapping included');
  } finally {
    await Promise.all([stop(platform), stop(bare.child)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function natsHopVsBareNats() {
  const { NATS_URL, DATABASE_URL } = process.env;
  if (!NATS_URL || !DATABASE_URL) {
    console.error('bench: skipping the NATS scenario (set NATS_URL and DATABASE_URL)');
    return;
  }
  const dbName = `kw_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const dbUrl = new URL(DATABASE_URL);
  dbUrl.pathname = `/${dbName}`;
  const port = await freePort();
  const platform = spawn(process.execPath, ['scripts/run-distributed.mjs'], {
    cwd: root,
    env: { PATH: process.env.PATH, APPS: 'gateway,fragments', DATABASE_URL: dbUrl.toString(), NATS_URL, NATS_SUBJECT_PREFIX: `bench${process.pid}`, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT_BASE: '0', LOG_LEVEL: 'warn', DIAGNOSTICS_ENABLED: 'true', ...UNLIMITED },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bare = await spawnLine(['bench/baselines/bare-fastify.mjs', 'nats', NATS_URL], {}, (l) => (/^\d+$/.test(l.trim()) ? l.trim() : undefined));
  try {
    const body = JSON.stringify({ component: 'fragments', text: 'bench' });
    const echoUrl = `http://127.0.0.1:${port}/api/diagnostics/echo`;
    await waitFor(echoUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const options = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const subject = await load(echoUrl, options);
    const baseline = await load(`http://127.0.0.1:${bare.value}/echo`, options);
    report('gateway -> NATS -> service vs bare Fastify + NATS request-reply', subject, baseline, 'distributed mode, no database work');
  } finally {
    await Promise.all([stop(platform), stop(bare.child)]);
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.end();
  }
}

await gatewayVsFastify();
await natsHopVsBareNats();
await mcpVsRest({ root, port: await freePort(), load, report, waitFor, stop, unlimited: UNLIMITED });
const searchResults = process.argv.includes('--search') ? await searchBenchmark({ root, quick, port: await freePort() }) : [];

console.log(`\nbenchmarks (${quick ? 'quick' : 'default'}: ${DURATION}s per measurement, ${CONNECTIONS} connections)\n`);
console.log('| scenario | platform req/s | baseline req/s | ratio | platform p50/p99 ms | baseline p50/p99 ms |');
console.log('|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.scenario} | ${r.subject.rps} | ${r.baseline.rps} | ${r.ratio}x | ${r.subject.p50}/${r.subject.p99} | ${r.baseline.p50}/${r.baseline.p99} |`);
}
if (searchResults.length > 0) {
  console.log('\n| search (latency ms, sequential) | fragments | GET /api/search p50/p95/p99 | raw full-text SQL p50/p95/p99 | raw vector SQL p50/p95/p99 |');
  console.log('|---|---|---|---|---|');
  const f = (m) => `${m.p50}/${m.p95}/${m.p99}`;
  for (const r of searchResults) console.log(`| hybrid, ${r.vectorIndex} vectors, ${r.queries} queries | ${r.fragments} | ${f(r.api)} | ${f(r.rawFullText)} | ${f(r.rawVector)} |`);
}
writeFileSync(path.join(root, 'bench/results/latest.json'), JSON.stringify({ at: new Date().toISOString(), quick, durationSeconds: DURATION, connections: CONNECTIONS, results, search: searchResults }, null, 2));
