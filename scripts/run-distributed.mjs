#!/usr/bin/env node
// Runs the distributed mode on this machine: every app as its own process on the local
// Postgres and NATS (DATABASE_URL, NATS_URL from the environment), like docker compose does
// with containers. It restarts an app that dies, after a pause that doubles with each exit in
// a row (RESTART_DELAY_MS, 1 s, up to RESTART_MAX_DELAY_MS, 30 s; back to the first once the
// app ran RESTART_STABLE_MS, 30 s), prefixes nothing (logs stay JSON, each line names its
// component), and on SIGTERM/SIGINT stops the gateway first (it drains the requests it
// accepted, which still need the other apps), then every other app, and exits 0 when all of
// them stopped. An app that exits with code 2 failed at start-up on its configuration (it
// printed the variable to set): restarting it cannot help, so it is not restarted and the
// reason is repeated once. Each app holds an IPC channel to this script: should the script die
// (kill -9), its apps drain and exit instead of living on unsupervised; through it each app also
// says, once ready, the port whose /healthz this script polls (an app that stops answering,
// a stuck event loop, is killed and restarted).
//
// Usage: DATABASE_URL=postgres://... NATS_URL=nats://... node scripts/run-distributed.mjs
// Optional: APPS=gateway,fragments (default: all), METRICS_PORT_BASE (default 9464).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALL = ['workspaces', 'agent-auth', 'chat', 'fragments', 'files', 'search', 'webhooks', 'gateway'];
const apps = (process.env.APPS ? process.env.APPS.split(',') : ALL).map((a) => a.trim()).filter(Boolean);
const metricsBase = Number(process.env.METRICS_PORT_BASE ?? 9464);
const RESTART_DELAY_MS = Number(process.env.RESTART_DELAY_MS ?? 1000);
const RESTART_MAX_DELAY_MS = Number(process.env.RESTART_MAX_DELAY_MS ?? 30_000);
const RESTART_STABLE_MS = Number(process.env.RESTART_STABLE_MS ?? 30_000);
// Liveness: every LIVENESS_INTERVAL_MS each ready app's GET /healthz must answer within
// LIVENESS_TIMEOUT_MS; after LIVENESS_FAILURES misses in a row (a stuck event loop, kill -STOP)
// the app is killed and restarted like one that died. 0 turns the check off.
const LIVENESS_INTERVAL_MS = Number(process.env.LIVENESS_INTERVAL_MS ?? 10_000);
const LIVENESS_TIMEOUT_MS = Number(process.env.LIVENESS_TIMEOUT_MS ?? 5_000);
const LIVENESS_FAILURES = Number(process.env.LIVENESS_FAILURES ?? 3);
/** runPlatform's exit code for a configuration error (ConfigError). */
const CONFIG_ERROR_EXIT = 2;

for (const key of ['DATABASE_URL', 'NATS_URL']) {
  if (!process.env[key]) {
    console.error(
      `run-distributed: ${key} is required (e.g. postgres://postgres@127.0.0.1:5432/kw, nats://127.0.0.1:4222)`,
    );
    process.exit(2);
  }
}

const children = new Map();
/** Per app: exits in a row that came before RESTART_STABLE_MS of running (the backoff's exponent). */
const quickExits = new Map();
let stopping = false;

function note(fields) {
  process.stdout.write(
    `${JSON.stringify({ level: 'info', component: 'run-distributed', time: new Date().toISOString(), ...fields })}\n`,
  );
}

function start(app, index) {
  const env = { ...process.env, RUN_MODE: 'distributed' };
  if (app !== 'gateway') env.METRICS_PORT = String(process.env.METRICS_PORT_BASE === '0' ? 0 : metricsBase + index);
  // The IPC channel is how an app learns that this script died (its end closes): see runPlatform.
  const child = spawn(process.execPath, [path.join(root, 'dist/apps', app, 'src/main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Its own process group: a Ctrl-C in the terminal reaches this script only, which stops the
    // apps in order (the gateway first) instead of every app at once.
    detached: true,
  });
  const startedAt = Date.now();
  children.set(app, child);
  note({ msg: 'app started', app, pid: child.pid });
  let liveness;
  child.on('message', (message) => {
    if (message?.kind === 'kw-ready' && LIVENESS_INTERVAL_MS > 0 && !liveness)
      liveness = watchLiveness(app, child, message.port);
  });
  child.once('exit', (code, signal) => {
    clearInterval(liveness);
    children.delete(app);
    if (stopping) {
      note({ msg: 'app exited', app, code, signal });
      if (children.size === 0) process.exit(0);
      else if (app === 'gateway') stopBackEnds();
      return;
    }
    if (code === CONFIG_ERROR_EXIT) {
      note({ msg: 'app exited', app, code, signal });
      note({
        level: 'error',
        msg: `${app} refused its configuration and is not restarted: set what its message above names, then start again`,
        app,
      });
      process.stderr.write(
        `run-distributed: ${app} is not running: its configuration is incomplete (see the "${app}:" line above)\n`,
      );
      if (children.size === 0) process.exit(CONFIG_ERROR_EXIT);
      return;
    }
    const inARow = Date.now() - startedAt >= RESTART_STABLE_MS ? 0 : (quickExits.get(app) ?? 0);
    quickExits.set(app, inARow + 1);
    const delay = Math.min(RESTART_DELAY_MS * 2 ** inARow, Math.max(RESTART_MAX_DELAY_MS, RESTART_DELAY_MS));
    note({ msg: 'app exited', app, code, signal, restartInMs: delay });
    setTimeout(() => !stopping && start(app, index), delay);
  });
}

/** Polls the app's /healthz; kills it (SIGKILL, then restarted as any exit) when it stops answering. */
function watchLiveness(app, child, port) {
  let misses = 0;
  let checking = false;
  const timer = setInterval(async () => {
    if (checking || stopping) return;
    checking = true;
    const live = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(LIVENESS_TIMEOUT_MS) })
      .then((res) => res.ok)
      .catch(() => false);
    checking = false;
    misses = live ? 0 : misses + 1;
    if (misses >= LIVENESS_FAILURES && !stopping && children.get(app) === child) {
      clearInterval(timer);
      note({ level: 'error', msg: 'app not live; killing it to restart', app, pid: child.pid, misses });
      child.kill('SIGKILL');
    }
  }, LIVENESS_INTERVAL_MS);
  return timer;
}

function stopBackEnds() {
  for (const [app, child] of children) if (app !== 'gateway') child.kill('SIGTERM');
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  note({ msg: 'stopping', signal });
  if (children.size === 0) process.exit(0);
  // The gateway first: requests it accepted still call the other apps while it drains.
  const gateway = children.get('gateway');
  if (gateway) gateway.kill('SIGTERM');
  else stopBackEnds();
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
apps.forEach((app, i) => start(app, i));
