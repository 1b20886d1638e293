import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { copyClusterTemplate } from './cluster-template.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface LogLine {
  level: string;
  msg?: string;
  component?: string;
  reqId?: string;
  [key: string]: unknown;
}

export interface PlatformProcess {
  /** Base URL the process listens on (API for the gateway, probes/metrics otherwise). */
  url: string;
  child: ChildProcess;
  logs: LogLine[];
  stderr: string[];
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Parses a child's stdout as JSON log lines into `logs` (other lines kept as `raw`). */
export function collectLogLines(
  child: ChildProcess,
  logs: LogLine[],
  onLine: (line: LogLine) => void = () => undefined,
): void {
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        parsed = { level: 'raw', msg: line };
      }
      logs.push(parsed);
      onLine(parsed);
    }
  });
}

/**
 * A scratch folder for one test's data, with the mode a DATA_DIR the platform creates gets
 * (0755; mkdtemp's is 0700): run as root, the embedded PostgreSQL runs as an unprivileged
 * account that must enter the folder.
 */
export function tempDir(prefix = 'kw-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * Starts a compiled app (`npm run build` ran in pretest) as a real process and waits for its
 * "ready" log line, which carries the URL it listens on.
 */
export async function startApp(app: string, env: Record<string, string>, timeoutMs = 60_000): Promise<PlatformProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps', app, 'src/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  // 'close', not 'exit': it fires once stdout and stderr are drained, so a process that dies
  // at start-up has every line it printed (its reason) in the logs.
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let onReady: ((url: string) => void) | undefined;
  collectLogLines(child, logs, (parsed) => {
    if (typeof parsed.msg === 'string' && parsed.msg.endsWith(' ready') && typeof parsed.url === 'string')
      onReady?.(parsed.url);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A process that never became ready must not outlive the test (it would load the machine).
      child.kill('SIGKILL');
      reject(new Error(`${app} not ready in ${timeoutMs} ms\n${stderr.join('')}\n${JSON.stringify(logs.slice(-20))}`));
    }, timeoutMs);
    onReady = (u) => {
      clearTimeout(timer);
      resolve(u);
    };
    void exited.then((code) => {
      clearTimeout(timer);
      const problems = logs.filter((l) => l.level === 'error' || l.level === 'fatal' || l.level === 'warn');
      reject(
        new Error(
          `${app} exited with ${code} before ready\n${stderr.join('')}\n${JSON.stringify([...problems, ...logs.slice(-20)])}`,
        ),
      );
    });
  });

  return {
    url,
    child,
    logs,
    stderr,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface EmbeddedStartOptions {
  /**
   * Let the platform create its database cluster (initdb), as on a first start. Otherwise an
   * empty data folder gets a copy of the run's template cluster (test/support/cluster-template.ts),
   * the same cluster a second earlier.
   */
  newCluster?: boolean;
}

/** Starts the embedded default (every component in one process, its database in dataDir). */
export function startEmbedded(
  dataDir: string,
  env: Record<string, string> = {},
  options: EmbeddedStartOptions = {},
): Promise<PlatformProcess> {
  // Only where the platform would make a PostgreSQL cluster: no external database, no PGlite asked for.
  if (!options.newCluster && !env.DATABASE_URL && !env.EMBEDDED_DATABASE)
    copyClusterTemplate(inject('embeddedClusterTemplate') ?? '', dataDir);
  return startApp('gateway', { RUN_MODE: 'embedded', PORT: '0', DATA_DIR: dataDir, ...env });
}
