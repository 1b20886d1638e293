#!/usr/bin/env node
// Runs the distributed mode on this machine: every app as its own process on the local
// Postgres and NATS (DATABASE_URL, NATS_URL from the environment), like docker compose does
// with containers. It restarts an app that dies (after a short pause), prefixes nothing
// (logs stay JSON, each line names its component), and on SIGTERM/SIGINT stops every app
// gracefully and exits 0 when all of them did. An app that exits with code 2 failed at start-up
// on its configuration (it printed the variable to set): restarting it cannot help, so it is
// not restarted and the reason is repeated once.
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
let stopping = false;

function note(fields) {
  process.stdout.write(
    `${JSON.stringify({ level: 'info', component: 'run-distributed', time: new Date().toISOString(), ...fields })}\n`,
  );
}

function start(app, index) {
  const env = { ...process.env, RUN_MODE: 'distributed' };
  if (app !== 'gateway') env.METRICS_PORT = String(process.env.METRICS_PORT_BASE === '0' ? 0 : metricsBase + index);
  const child = spawn(process.execPath, [path.join(root, 'dist/apps', app, 'src/main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.set(app, child);
  note({ msg: 'app started', app, pid: child.pid });
  child.once('exit', (code, signal) => {
    children.delete(app);
    note({ msg: 'app exited', app, code, signal });
    if (stopping) {
      if (children.size === 0) process.exit(0);
      return;
    }
    if (code === CONFIG_ERROR_EXIT) {
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
    setTimeout(() => !stopping && start(app, index), RESTART_DELAY_MS);
  });
}

function stop(signal) {
  if (stopping) return;
  stopping = true;
  note({ msg: 'stopping', signal });
  if (children.size === 0) process.exit(0);
  for (const child of children.values()) child.kill('SIGTERM');
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
apps.forEach((app, i) => start(app, i));
