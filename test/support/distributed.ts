import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { deleteEventStream } from './nats-streams.js';
import { collectLogLines, ROOT, type LogLine } from './processes.js';

export interface DistributedPlatform {
  /** The gateway's base URL. */
  url: string;
  runner: ChildProcess;
  logs: LogLine[];
  /** Current pid of an app (apps are restarted by the runner when they die). */
  pidOf(app: string): number | undefined;
  stop(): Promise<number | string>;
}

/**
 * Runs scripts/run-distributed.mjs (the same script operators use): every app its own process
 * on real Postgres and NATS. A unique NATS subject prefix keeps parallel runs apart.
 */
export async function startDistributed(
  env: { DATABASE_URL: string; NATS_URL: string } & Record<string, string>,
  timeoutMs = 60_000,
): Promise<DistributedPlatform> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const subjectPrefix = env.NATS_SUBJECT_PREFIX ?? `t${randomBytes(4).toString('hex')}`;
  const runner = spawn(process.execPath, [path.join(ROOT, 'scripts/run-distributed.mjs')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT_BASE: '0',
      LOG_LEVEL: 'debug',
      NATS_SUBJECT_PREFIX: subjectPrefix,
      RESTART_DELAY_MS: '300',
      // Every replica must seal and open secrets with the same key (a test-only key).
      SECRETS_ENCRYPTION_KEY: 'a'.repeat(64),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const pids = new Map<string, number>();
  const exited = new Promise<number | string>((resolve) =>
    runner.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  collectLogLines(runner, logs, (parsed) => {
    if (parsed.msg === 'app started') pids.set(parsed.app as string, parsed.pid as number);
  });
  const stderr: string[] = [];
  runner.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (runner.exitCode !== null) throw new Error(`run-distributed exited: ${stderr.join('')}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(
        `distributed platform not healthy in ${timeoutMs} ms\n${stderr.join('')}\n${JSON.stringify(logs.slice(-30))}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    runner,
    logs,
    pidOf: (app) => pids.get(app),
    async stop() {
      if (runner.exitCode === null) runner.kill('SIGTERM');
      const code = await exited;
      await deleteEventStream(env.NATS_URL, subjectPrefix);
      return code;
    },
  };
}
