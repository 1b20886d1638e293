import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { collectLogLines, ROOT, type LogLine } from '../support/processes.js';
import { deleteEventStream } from '../support/nats-streams.js';
import { createTestDatabase } from '../support/postgres.js';
import { describeWith, TEST_NATS_URL } from '../support/services.js';

/** A bad configuration stops the process at once, naming every offending variable. */
describe('start-up configuration', () => {
  it('exits 2 with a message naming each bad variable', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', RUN_MODE: 'distributed', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Invalid configuration');
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'NATS_URL']) expect(run.stderr).toContain(`${name}:`);
    expect(run.stdout).toBe('');
  });

  it('refuses a bad PLANS before it makes or starts the embedded database: the data folder stays empty', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kw-plans-refused-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    for (const plans of [
      '{"default":"free","plans":[{"id":"free","name":"Free","limit":{"x":1}}]}',
      '{"default":"gold","plans":[{"id":"free","name":"Free"}]}',
      '{"default":"free","plans":[{"id":"free","name":"Free","limits":{"storageBytes":-1}}]}',
    ]) {
      const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', PORT: '0', DATA_DIR: dataDir, PLANS: plans },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain('PLANS: ');
      expect(readdirSync(dataDir)).toEqual([]);
    }
  });

  it('refuses a component the binary does not have', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/fragments/src/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TARGETS: 'search' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('TARGETS names components this binary does not have: search');
  });
});

describe("the distributed supervisor's settings", () => {
  it('are each documented in docs/configuration.md, which claims to list every setting', () => {
    const script = readFileSync(path.join(ROOT, 'scripts/run-distributed.mjs'), 'utf8');
    const names = [...new Set([...script.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]))];
    expect(names).toContain('RESTART_DELAY_MS');
    const doc = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    expect(names.filter((name) => !doc.includes(`| \`${name}\` |`))).toEqual([]);
  });
});

describeWith(['postgres', 'nats'], 'configuration its components read', () => {
  // The gateway composes the chat API (CHAT_PROVIDERS) and the plan limits (PLANS): a bad table
  // found while the components are built is a configuration error too: exit 2, the variable named.
  // (Distributed, so that a start that wrongly succeeds keeps no data folder behind.)
  it.each([
    // Not a URL (class-validator took a bare word for a host name; new URL() then threw a TypeError).
    ['STRIPE_API_URL', 'notaurl', 'STRIPE_API_URL: '],
    ['CHAT_PROVIDERS', '{"providers": [', 'CHAT_PROVIDERS: providers config: not valid JSON'],
    ['CHAT_PROVIDERS', '{"providers": [{"id": "x", "kind": "other"}]}', 'CHAT_PROVIDERS: providers[0].kind'],
    [
      'PLANS',
      '{"default":"free","plans":[{"id":"free","name":"Free","limit":{"x":1}}]}',
      'PLANS: plans[0].limit: unknown field',
    ],
    ['PLANS', '{"default":"free","plans":[{"id":"free"}]}', 'PLANS: plans[0].name'],
    ['PLANS', '{"default":"free","plans":[{"id":"free","name":"Free"}],"extra":1}', 'PLANS: extra: unknown field'],
    // A boolean took any word, `maybe` meaning false (flipping S3_FORCE_PATH_STYLE's default, true).
    ['LOG_PRETTY', 'maybe', 'LOG_PRETTY: LOG_PRETTY must be true or false'],
    ['DIAGNOSTICS_ENABLED', 'maybe', 'DIAGNOSTICS_ENABLED: DIAGNOSTICS_ENABLED must be true or false'],
    ['S3_FORCE_PATH_STYLE', 'maybe', 'S3_FORCE_PATH_STYLE: S3_FORCE_PATH_STYLE must be true or false'],
    // Started, and stored files on local disk while the operator believed they went to S3.
    ['S3_ENDPOINT', 'http://127.0.0.1:9', 'S3_BUCKET: required when S3_ENDPOINT is set'],
    // These crashed with exit 1 (restarted for ever by supervisors), the first three without naming the variable.
    ['MCP_ALLOWED_ORIGINS', 'notanorigin', 'MCP_ALLOWED_ORIGINS: '],
    ['HOST', 'not_a_host!', 'HOST: HOST must be an IP address'],
    ['DATA_DIR', '/dev/null/sub', 'DATA_DIR: /dev/null/sub cannot be used as the data folder (ENOTDIR)'],
    ['WEB_SEARCH_PROVIDER', 'searxng', 'WEB_SEARCH_URL: required when WEB_SEARCH_PROVIDER=searxng'],
    ['WEB_SEARCH_PROVIDER', 'exa', 'WEB_SEARCH_API_KEY: required when WEB_SEARCH_PROVIDER=exa'],
  ])('exits 2 naming %s when it is %s', (name, value, message) => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        RUN_MODE: 'distributed',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
        NATS_URL: TEST_NATS_URL!,
        PORT: '0',
        [name]: value,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('TypeError');
  });
});

describeWith(['postgres', 'nats'], 'configuration the webhooks component reads', () => {
  const runWebhooks = (env: Record<string, string>) =>
    spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/webhooks/src/main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        RUN_MODE: 'distributed',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
        NATS_URL: TEST_NATS_URL!,
        METRICS_PORT: '0',
        SECRETS_ENCRYPTION_KEY: '0'.repeat(63) + '1',
        ...env,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('exits 2 naming WEBHOOKS_CA_FILE when it cannot be read or holds no certificate', () => {
    // It crashed with ENOENT (exit 1) while the component was built, without naming the variable.
    const missing = runWebhooks({ WEBHOOKS_CA_FILE: '/nonexistent.pem' });
    expect(missing.status, missing.stderr).toBe(2);
    expect(missing.stderr).toContain('WEBHOOKS_CA_FILE: cannot read /nonexistent.pem (ENOENT)');
    const notPem = path.join(ROOT, 'package.json');
    const wrong = runWebhooks({ WEBHOOKS_CA_FILE: notPem });
    expect(wrong.status, wrong.stderr).toBe(2);
    expect(wrong.stderr).toContain(`WEBHOOKS_CA_FILE: ${notPem} holds no PEM certificate`);
  });
});

describeWith(['postgres', 'nats'], 'a HOST that cannot be listened on', () => {
  it('exits 1 naming HOST, not the port', () => {
    // 192.0.2.1 (TEST-NET-1) is a valid address, but none of this machine's.
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        RUN_MODE: 'distributed',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
        NATS_URL: TEST_NATS_URL!,
        PORT: '0',
        HOST: '192.0.2.1',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain('HOST 192.0.2.1 cannot be listened on');
  });
});

describeWith(['postgres', 'nats'], 'the distributed supervisor', () => {
  it('does not restart an app that refused its configuration, and says what to set', async () => {
    const database = await createTestDatabase('kw_supervisor');
    onTestFinished(() => database.drop());
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/run-distributed.mjs')], {
      cwd: ROOT,
      // No SECRETS_ENCRYPTION_KEY: the webhooks component needs one in the distributed mode.
      env: {
        PATH: process.env.PATH ?? '',
        APPS: 'webhooks',
        METRICS_PORT_BASE: '0',
        RESTART_DELAY_MS: '100',
        DATABASE_URL: database.url,
        NATS_URL: TEST_NATS_URL!,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout.match(/"msg":"app started"/g)).toHaveLength(1);
    expect(run.stderr).toContain('SECRETS_ENCRYPTION_KEY is required by the webhooks component');
    expect(run.stderr).toContain('run-distributed: webhooks is not running');
  });

  /** run-distributed with these apps on a database of their own, its log lines, and its apps' pids as it started them. */
  async function runSupervisor(env: Record<string, string>) {
    const database = await createTestDatabase('kw_supervisor');
    onTestFinished(() => database.drop());
    const subjectPrefix = `t${Date.now().toString(36)}`;
    onTestFinished(() => deleteEventStream(TEST_NATS_URL!, subjectPrefix));
    const runner = spawn(process.execPath, [path.join(ROOT, 'scripts/run-distributed.mjs')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        NATS_URL: TEST_NATS_URL!,
        NATS_SUBJECT_PREFIX: subjectPrefix,
        DATABASE_URL: database.url,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: LogLine[] = [];
    const pids: number[] = [];
    collectLogLines(runner, logs, (l) => {
      if (l.msg === 'app started') pids.push(l.pid as number);
    });
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    onTestFinished(() => {
      if (runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    return { runner, logs, pids, alive };
  }

  it('its apps drain and exit when the supervisor itself is killed (kill -9)', async () => {
    const { runner, logs, pids, alive } = await runSupervisor({
      APPS: 'search',
      METRICS_PORT_BASE: '0',
    });
    await expect.poll(() => logs.some((l) => l.msg === 'search ready'), { timeout: 60_000 }).toBe(true);
    runner.kill('SIGKILL');
    // Without it the app lives on unsupervised, holding its port (a new supervisor's app then
    // cannot start).
    await expect.poll(() => alive(pids[0]), { timeout: 20_000, interval: 200 }).toBe(false);
    expect(logs.some((l) => l.msg === 'the supervisor that started this process is gone')).toBe(true);
    expect(logs.some((l) => l.component === 'search' && l.msg === 'stopped')).toBe(true);
  }, 90_000);

  it('kills and restarts an app that stops answering its liveness probe (a stuck event loop)', async () => {
    const { runner, logs, pids, alive } = await runSupervisor({
      APPS: 'search',
      METRICS_PORT_BASE: '0',
      LIVENESS_INTERVAL_MS: '200',
      LIVENESS_TIMEOUT_MS: '300',
      LIVENESS_FAILURES: '3',
      RESTART_DELAY_MS: '100',
    });
    await expect.poll(() => logs.some((l) => l.msg === 'search ready'), { timeout: 60_000 }).toBe(true);
    // Answering its probe, it is left alone.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(logs.filter((l) => l.msg === 'app not live; killing it to restart')).toEqual([]);
    const stuck = pids[0];
    process.kill(stuck, 'SIGSTOP');
    await expect
      .poll(() => logs.some((l) => l.msg === 'app not live; killing it to restart' && l.pid === stuck), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    await expect.poll(() => alive(stuck), { timeout: 10_000, interval: 100 }).toBe(false);
    await expect.poll(() => pids.length, { timeout: 20_000, interval: 100 }).toBe(2);
    await expect
      .poll(() => logs.filter((l) => l.msg === 'search ready').length, { timeout: 60_000, interval: 200 })
      .toBe(2);
    runner.kill('SIGTERM');
  }, 120_000);

  it('restarts a crashing app with a doubling delay; an app whose port is taken stops before it consumes', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;
    const { runner, logs } = await runSupervisor({
      APPS: 'fragments',
      METRICS_PORT_BASE: String(port),
      RESTART_DELAY_MS: '100',
    });
    const exits = () => logs.filter((l) => l.msg === 'app exited');
    await expect.poll(() => exits().length, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    runner.kill('SIGTERM');
    expect(
      exits()
        .slice(0, 4)
        .map((l) => [l.code, l.restartInMs]),
    ).toEqual([
      [1, 100],
      [1, 200],
      [1, 400],
      [1, 800],
    ]);
    const fragments = logs.filter((l) => l.component === 'fragments');
    const fatal = fragments.filter((l) => l.level === 'fatal');
    expect(fatal.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(fatal[0])).toContain(`METRICS_PORT ${port} is in use`);
    // It stopped before opening the database or consuming: its failure is its only line.
    expect(fragments.filter((l) => l.level !== 'fatal')).toEqual([]);
  }, 90_000);
});
