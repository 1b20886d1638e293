// Shared helpers of the benchmark suite: processes, load, waiting, percentiles, scratch
// resources and their cleanup. Every process, temp folder, scratch database and JetStream
// stream made through these helpers is registered and removed by cleanupAll(), which
// bench/run.mjs runs at the end, on a crash and on SIGINT/SIGTERM.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, closeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const quick = process.argv.includes('--quick');

/** `--name=value` arguments as { name: value } (a bare `--flag` is 'true'). */
export function cliArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv
      .filter((a) => a.startsWith('--'))
      .map((a) => {
        const [name, ...value] = a.slice(2).split('=');
        return [name, value.length ? value.join('=') : 'true'];
      }),
  );
}

/** Seconds per throughput measurement (platform and baseline each). */
export const DURATION = quick ? 3 : 10;
export const CONNECTIONS = 16;
/** The load generator is one address: lift the rate limits for the measured platform. */
export const UNLIMITED = {
  RATE_LIMIT_PER_ADDRESS: '1000000000',
  RATE_LIMIT_PER_CREDENTIAL: '1000000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000000',
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Where every temp file of this run lives (logs, data dirs): one folder, removed at the end. */
export const runDir = mkdtempSync(path.join(tmpdir(), `kw-bench-${process.pid}-`));
chmodSync(runDir, 0o755);

// ---------------------------------------------------------------------------------------
// Cleanup registry (last registered, first undone: a database is dropped after its users stop)

const cleanups = [];
const processes = new Set();
let spawned = 0;

export function onCleanup(label, fn) {
  const entry = { label, fn };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

/** Set by cleanupAll: a scenario still running after a signal may not make new resources. */
let closing = false;
const assertOpen = () => {
  if (closing) throw new Error('the run is being cleaned up');
};

export async function cleanupAll() {
  closing = true;
  while (cleanups.length > 0) {
    const { label, fn } = cleanups.pop();
    try {
      await fn();
    } catch (err) {
      console.error(`bench: cleanup of ${label} failed: ${err.message}`);
    }
  }
  removeRunDir();
}

/** BENCH_KEEP_LOGS=1 keeps the run's directory (the platforms' logs) to read after a failure. */
function removeRunDir() {
  if (process.env.BENCH_KEEP_LOGS === '1') return void console.error(`bench: logs kept in ${runDir}`);
  rmSync(runDir, { recursive: true, force: true });
}

// Last resort when the orchestrator dies without running cleanupAll (e.g. an exception in
// cleanup itself): kill what is still running. Synchronous, as 'exit' handlers must be.
process.on('exit', () => {
  for (const child of processes) killTree(child, 'SIGKILL');
  removeRunDir();
});

// ---------------------------------------------------------------------------------------
// Processes

/**
 * Starts `node <script> ...args` from the repository root with only PATH and `env` in its
 * environment; stdout and stderr go to a log file (printed in part if the scenario fails).
 * `group`: the child leads its own process group (run-distributed.mjs and its apps), so a
 * hard kill reaches the grandchildren too.
 */
export function spawnNode(script, args, { env = {}, name = path.basename(script), group = false } = {}) {
  assertOpen();
  const logFile = path.join(runDir, `${name}-${spawned++}.log`);
  const fd = openSync(logFile, 'w');
  // BENCH_CPU_PROF_DIR: every Node process of the run writes a V8 CPU profile there when it exits.
  const profile = process.env.BENCH_CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF_DIR)}`]
    : [];
  const child = spawn(process.execPath, [...profile, script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', fd, fd],
    detached: group,
  });
  closeSync(fd);
  child.logFile = logFile;
  child.group = group;
  child.label = name;
  processes.add(child);
  child.once('exit', () => {
    // A group leader's exit can leave its children behind: make sure none survive.
    if (group) killTree(child, 'SIGKILL');
    processes.delete(child);
  });
  onCleanup(`process ${name}`, () => stop(child));
  return child;
}

function killTree(child, signal) {
  try {
    if (child.group) process.kill(-child.pid, signal);
    else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  } catch {
    // Already gone.
  }
}

/** SIGTERM (a graceful drain), then SIGKILL after `timeoutMs`. */
export async function stop(child, timeoutMs = 20_000) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => killTree(child, 'SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
  if (child.group) killTree(child, 'SIGKILL');
}

/** The last lines of a process's log (for the report of a failed scenario). */
export function logTail(child, lines = 30) {
  try {
    return readFileSync(child.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Polls `check` until it returns a truthy value (a throw counts as not yet); fails fast if
 * `child` exits meanwhile or `failIf` throws.
 */
export async function waitFor(what, check, { timeoutMs = 120_000, intervalMs = 200, child, failIf } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(
        `${child.label} exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}:\n${logTail(child)}`,
      );
    failIf?.();
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${child ? `:\n${logTail(child)}` : ''}`);
    await sleep(intervalMs);
  }
}

/** A baseline server (bench/baselines/*.mjs prints its port as its first line). */
export async function startBaseline(script, args, env = {}) {
  const child = spawnNode(script, args, { env, name: `baseline-${args[0]}` });
  const port = await waitFor(
    `${script} ${args[0]}`,
    async () => /^(\d+)$/m.exec(readFileSync(child.logFile, 'utf8'))?.[1],
    { child, timeoutMs: 30_000, intervalMs: 50 },
  );
  return { child, base: `http://127.0.0.1:${port}` };
}

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------
// Measuring

/**
 * autocannon with the suite's defaults; any non-2xx answer or socket error fails the
 * measurement (a fast error page must never pass for throughput). Requests per second is
 * completed requests over elapsed time.
 */
export async function load(url, { maxSeconds, ...options } = {}) {
  // The first unexpected answer is kept for the error (with `requests`, where autocannon hands bodies over).
  let firstFailure;
  const requests = options.requests?.map((r) => ({
    ...r,
    onResponse: (status, body) => {
      if ((status < 200 || status > 299) && !firstFailure) firstFailure = `${status} ${String(body).slice(0, 300)}`;
    },
  }));
  const run = autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    ...options,
    ...(requests && { requests }),
  });
  // `amount` runs end at the count; `maxSeconds` ends them earlier on a slow platform.
  const timer = maxSeconds ? setTimeout(() => run.stop(), maxSeconds * 1000) : undefined;
  const result = await run;
  clearTimeout(timer);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${code}: ${count}`)
      .join(', ');
    throw new Error(
      `${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total} (status codes ${codes})${firstFailure ? `; first: ${firstFailure}` : ''}`,
    );
  }
  return {
    rps: Math.round(result.requests.total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    seconds: +result.duration.toFixed(2),
  };
}

export function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), n: sorted.length };
}

/**
 * A result row for `count` items done in `platformSeconds` against the same `count` done the
 * baseline's way in `baselineSeconds` (rates per second; ratio above 1: the platform is faster).
 */
export function throughputRow({ scenario, unit, count, platformSeconds, baselineSeconds, target, note }) {
  const side = (seconds) => ({ rps: +(count / seconds).toFixed(1), seconds: +seconds.toFixed(2) });
  return {
    scenario,
    unit,
    platform: side(platformSeconds),
    baseline: side(baselineSeconds),
    ratio: baselineSeconds / platformSeconds,
    target,
    note,
  };
}

/** Runs `fn(i)` `count` times in sequence; latency percentiles in ms. */
export async function timed(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

// ---------------------------------------------------------------------------------------
// Scratch resources

let scratchCount = 0;

/** A new database on DATABASE_URL's server, dropped at cleanup; returns its URL. */
export async function scratchDatabase(label) {
  const name = `kw_bench_${process.pid}_${scratchCount++}_${label}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const drop = async () => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  if (closing) {
    await drop();
    assertOpen();
  }
  onCleanup(`database ${name}`, drop);
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A temp folder inside this run's folder. 0755 like a DATA_DIR the platform creates: run as root,
 * the embedded PostgreSQL's unprivileged account must enter it (and the run's folder).
 */
export function scratchDir(label) {
  const dir = mkdtempSync(path.join(runDir, `${label}-`));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * The JetStream stream the platform creates for NATS_SUBJECT_PREFIX `prefix` (its consumers
 * go with it) is deleted at cleanup.
 */
export function dropStreamAtCleanup(prefix) {
  onCleanup(`stream of ${prefix}`, async () => {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: process.env.NATS_URL });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(`KW_EVENTS_${prefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}`).catch((err) => {
        if (!/not found/i.test(err.message)) throw err;
      });
    } finally {
      await nc.close();
    }
  });
}

// ---------------------------------------------------------------------------------------
// Resident memory (Linux /proc)

/** VmRSS of a process in MB, or undefined when it is gone. */
export function rssMb(pid) {
  try {
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? +(kb / 1024).toFixed(1) : undefined;
  } catch {
    return undefined;
  }
}

/** Direct children of a process (every thread's children file). */
export function childrenOf(pid) {
  const out = new Set();
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
        if (c) out.add(Number(c));
    }
  } catch {
    // Gone.
  }
  return [...out];
}

export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
