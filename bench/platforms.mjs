// The measured platform, started once per mode and shared by the scenarios of that mode:
// embedded (one process and its own PostgreSQL server on a temp folder, or Postgres when given
// DATABASE_URL) and
// distributed (scripts/run-distributed.mjs: one process per app over NATS, on a scratch
// Postgres database). Both get an admin account and token from ADMIN_EMAIL/ADMIN_PASSWORD/
// ADMIN_TOKEN, and the rate limits lifted (the load generator is one address).
import { randomBytes } from 'node:crypto';
import {
  UNLIMITED,
  childrenOf,
  commandLine,
  dropStreamAtCleanup,
  freePort,
  logTail,
  scratchDatabase,
  scratchDir,
  spawnNode,
  stop,
  waitFor,
} from './lib.mjs';

/** The apps a fragment create and its enrichment go through (plus search), see bench/README.md. */
export const DEFAULT_APPS = ['gateway', 'workspaces', 'agent-auth', 'fragments', 'search'];

function credentials() {
  return {
    ADMIN_EMAIL: 'bench@example.test',
    ADMIN_PASSWORD: `pw-${randomBytes(12).toString('hex')}`,
    ADMIN_TOKEN: `bench-admin-${randomBytes(16).toString('hex')}`,
  };
}

function pickCredentials(env) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('ADMIN_')));
}

/** The platform's HTTP API as the admin. */
export class Api {
  constructor(base, token) {
    this.base = base;
    this.token = token;
    this.auth = { authorization: `Bearer ${token}` };
    this.json = { ...this.auth, 'content-type': 'application/json' };
  }

  async request(method, p, body) {
    const res = await fetch(`${this.base}${p}`, {
      method,
      headers: body === undefined ? this.auth : this.json,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** A new workspace and the id of its default `note` fragment type. */
  async workspace(name) {
    const { workspace } = await this.request('POST', '/api/workspaces', { name });
    const types = await this.request('GET', `/api/workspaces/${workspace.id}/fragment-types`);
    return { workspaceId: workspace.id, typeId: types.items.find((t) => t.key === 'note').id };
  }

  async createFragment(workspaceId, typeId, note) {
    const { fragment } = await this.request('POST', '/api/memory-fragments', {
      workspaceId,
      fragmentTypeId: typeId,
      title: note.title,
      content: note.content,
    });
    return fragment;
  }

  /** Waits until no fragment of the workspace is `processing` (enrichment done). */
  async waitEnriched(workspaceId, timeoutMs = 120_000) {
    await waitFor(
      `enrichment of workspace ${workspaceId}`,
      async () =>
        (await this.request('GET', `/api/memory-fragments?workspaceId=${workspaceId}&status=processing&limit=5`))
          .totalCount === 0,
      { timeoutMs, intervalMs: 250 },
    );
  }
}

/** One process serving everything; `env` may add DATABASE_URL (that Postgres instead of its own server). */
export async function startEmbedded({ name = 'embedded', env = {} } = {}) {
  const port = await freePort();
  // A caller reusing a data directory passes the credentials it was made with.
  const creds = { ...credentials(), ...pickCredentials(env) };
  const dataDir = env.DATA_DIR ?? scratchDir(name);
  const child = spawnNode('dist/apps/gateway/src/main.js', [], {
    name,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...creds,
      ...UNLIMITED,
      ...env,
    },
  });
  const api = new Api(`http://127.0.0.1:${port}`, creds.ADMIN_TOKEN);
  await waitFor(
    `${name} platform`,
    async () => (await fetch(`${api.base}/api/auth/validate-token`, { headers: api.auth })).ok,
    { child },
  );
  return {
    mode: 'embedded',
    api,
    child,
    credentials: creds,
    dataDir,
    /** The process to weigh, and the embedded PostgreSQL server it started (its postmaster). */
    processes: () => [
      { name: 'gateway binary, every component', pid: child.pid },
      ...childrenOf(child.pid)
        .filter((pid) => /\/bin\/postgres$/.test(commandLine(pid)[0] ?? ''))
        .map((pid) => ({ name: 'its PostgreSQL server (postmaster only, not its backends)', pid })),
    ],
    stop: () => stop(child),
  };
}

/**
 * scripts/run-distributed.mjs with `apps`, on a scratch database and its own NATS subject
 * prefix (so a run never meets another's subjects or stream); extra `env` for every app.
 */
export async function startDistributed({ apps = DEFAULT_APPS, env = {} } = {}) {
  const databaseUrl = await scratchDatabase('dist');
  const prefix = `kwbench${process.pid}`;
  dropStreamAtCleanup(prefix);
  const port = await freePort();
  const creds = credentials();
  const child = spawnNode('scripts/run-distributed.mjs', [], {
    name: 'distributed',
    group: true,
    env: {
      APPS: apps.join(','),
      DATABASE_URL: databaseUrl,
      NATS_URL: process.env.NATS_URL,
      NATS_SUBJECT_PREFIX: prefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT_BASE: '0',
      LOG_LEVEL: 'warn',
      DIAGNOSTICS_ENABLED: 'true',
      // Required in distributed mode (workspaces keeps hosted-zone secrets sealed with it).
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      // A crash must fail the scenario, not be hidden by a restart in the middle of a measurement.
      RESTART_DELAY_MS: '600000',
      ...creds,
      ...UNLIMITED,
      ...env,
    },
  });
  const api = new Api(`http://127.0.0.1:${port}`, creds.ADMIN_TOKEN);
  /** Fails when an app died (run-distributed logs "app exited"; restarts are off). */
  const assertAlive = () => {
    const exited = /"msg":"app exited"[^\n]*/.exec(logTail(child, 5000));
    if (exited) throw new Error(`an app of the distributed run exited: ${exited[0]}\n${logTail(child)}`);
  };
  // Ready when the gateway accepts the admin token and every started app answers health.
  const others = apps.filter((a) => a !== 'gateway');
  await waitFor(
    'the distributed platform',
    async () => {
      if (!(await fetch(`${api.base}/api/auth/validate-token`, { headers: api.auth })).ok) return false;
      const health = await (await fetch(`${api.base}/api/health`)).json();
      return others.every((a) => health.components?.find((c) => c.component === a)?.status === 'ok');
    },
    { child, timeoutMs: 180_000, intervalMs: 500, failIf: assertAlive },
  );
  return {
    mode: 'distributed',
    api,
    child,
    databaseUrl,
    /** run-distributed.mjs itself and each app it spawned, named by dist/apps/<name>/src/main.js. */
    processes: () => [
      { name: 'run-distributed.mjs', pid: child.pid },
      ...childrenOf(child.pid).map((pid) => ({
        name: /dist\/apps\/([^/]+)\/src\/main\.js/.exec(commandLine(pid).join(' '))?.[1] ?? `pid ${pid}`,
        pid,
      })),
    ],
    assertAlive,
    stop: () => stop(child),
  };
}
