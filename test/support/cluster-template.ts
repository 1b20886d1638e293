import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  SERVER_DATA_FOLDER,
  postgresBinaries,
  startPostgresServer,
} from '../../libs/platform/persistence/src/embedded/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A data folder holding only an embedded PostgreSQL cluster, made once per run ('' when there is none). */
    embeddedClusterTemplate: string;
  }
}

/**
 * Global setup: one embedded PostgreSQL cluster, created by the platform's own code, which
 * `startEmbedded` copies into a test's empty data folder. An embedded start then skips initdb
 * (about a second of CPU, on a suite that starts the platform about a hundred times); the
 * platform's first-start path (initdb) stays tested where a test asks for it
 * (`startEmbedded(dir, env, { newCluster: true })`) and in the server's own spec.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const binaries = await postgresBinaries();
  if (!binaries) {
    project.provide('embeddedClusterTemplate', '');
    return () => undefined;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'kw-cluster-template-'));
  // The server's account (run as root) must be able to enter the folder, as in tempDir().
  chmodSync(dir, 0o755);
  const server = await startPostgresServer({ dataDir: dir, binaries });
  await server.stop();
  // The lock is the folder's, not the cluster's: each copy takes its own.
  rmSync(path.join(dir, 'pg.lock'), { force: true });
  project.provide('embeddedClusterTemplate', existsSync(path.join(dir, SERVER_DATA_FOLDER, 'PG_VERSION')) ? dir : '');
  return () => rmSync(dir, { recursive: true, force: true });
}

/**
 * Copies the template's cluster into `dataDir` (empty, or holding no cluster yet). `cp -a`
 * keeps owners and modes: run as root, the cluster belongs to the server's own account.
 */
export function copyClusterTemplate(template: string, dataDir: string): void {
  // `pg`: PGlite's folder; the platform keeps a folder on the engine that made it.
  if (!template || existsSync(path.join(dataDir, SERVER_DATA_FOLDER)) || existsSync(path.join(dataDir, 'pg'))) return;
  const cluster = path.join(template, SERVER_DATA_FOLDER);
  // The server's password file sits beside its cluster (postgres-server.ts, passwordFile).
  spawnSync('cp', ['-a', cluster, `${cluster}.password`, dataDir]);
}
