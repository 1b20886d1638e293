import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plane } from '../planes.js';
import { findPrismaDir } from './prisma-dir.js';

export interface MigrationFile {
  /** Folder name, `<timestamp>_<name>`: Prisma's `migration_name`. */
  name: string;
  sql: string;
  /** sha256 hex of the file's bytes, as Prisma stores it. */
  checksum: string;
}

export function checksumOf(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Whether a file still matches the checksum recorded when it was applied. Like Prisma, a
 * checkout that only turned LF into CRLF (or back) still matches.
 */
export function matchesChecksum(file: MigrationFile, recorded: string): boolean {
  if (file.checksum === recorded) return true;
  const lf = file.sql.replace(/\r\n/g, '\n');
  return checksumOf(lf) === recorded || checksumOf(lf.replace(/\n/g, '\r\n')) === recorded;
}

/** A plane's committed migrations in the order Prisma applies them (folder name order). */
export function readMigrationFiles(plane: Plane, prismaDir: string = findPrismaDir()): MigrationFile[] {
  const dir = path.join(prismaDir, plane, 'migrations');
  if (!existsSync(dir)) throw new Error(`No migrations folder for the ${plane} plane at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name, 'migration.sql'));
      return { name, sql: bytes.toString('utf8'), checksum: checksumOf(bytes) };
    });
}
