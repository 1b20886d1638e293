import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findPrismaDir } from '../src/migrations/prisma-dir.js';
import type { Plane } from '../src/planes.js';

/** A temporary folder, removed by the returned function (0755, as test/support's tempDir says why). */
export function tempDir(prefix: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  chmodSync(dir, 0o755);
  return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A copy of the repository's prisma/ folder that a test may add migrations to or tamper with. */
export function copyPrismaDir(): { prismaDir: string; remove: () => void } {
  const dir = tempDir('kw-prisma');
  const prismaDir = path.join(dir.path, 'prisma');
  cpSync(findPrismaDir(), prismaDir, { recursive: true });
  return { prismaDir, remove: dir.remove };
}

export function addMigration(prismaDir: string, plane: Plane, name: string, sql: string): void {
  const dir = path.join(prismaDir, plane, 'migrations', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'migration.sql'), sql);
}
