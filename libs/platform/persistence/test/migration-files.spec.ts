import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../src/embedded/data-dir-lock.js';
import { matchesChecksum, readMigrationFiles } from '../src/migrations/migration-files.js';
import { findPrismaDir } from '../src/migrations/prisma-dir.js';
import { addMigration, copyPrismaDir, tempDir } from './fixtures.js';

describe('migration files', () => {
  const fixture = copyPrismaDir();
  afterAll(() => fixture.remove());

  it('finds the repository prisma/ folder by walking up to package.json', () => {
    const dir = findPrismaDir();
    expect(readFileSync(path.join(dir, '..', 'package.json'), 'utf8')).toContain('"name"');
    expect(path.basename(dir)).toBe('prisma');
    expect(() => findPrismaDir('/')).toThrow(/No prisma\/ folder found.*pass prismaDir/);
  });

  it('lists a plane in folder-name order with the sha256 of each file as checksum', () => {
    addMigration(fixture.prismaDir, 'control', '29990101000002_later', 'SELECT 2;\n');
    addMigration(fixture.prismaDir, 'control', '29990101000001_earlier', 'SELECT 1;\n');
    const files = readMigrationFiles('control', fixture.prismaDir);
    expect(files.map((f) => f.name).slice(-2)).toEqual(['29990101000001_earlier', '29990101000002_later']);
    const later = files.at(-1)!;
    expect(later.checksum).toBe(createHash('sha256').update('SELECT 2;\n').digest('hex'));
    expect(files.map((f) => f.name)).not.toContain('migration_lock.toml');
  });

  it('matches a recorded checksum across LF/CRLF conversion only', () => {
    const [file] = readMigrationFiles('data', fixture.prismaDir);
    const crlf = path.join(fixture.prismaDir, 'data', 'migrations', file!.name, 'migration.sql');
    writeFileSync(crlf, file!.sql.replace(/\n/g, '\r\n'));
    const [converted] = readMigrationFiles('data', fixture.prismaDir);
    expect(converted!.checksum).not.toBe(file!.checksum);
    expect(matchesChecksum(converted!, file!.checksum)).toBe(true);
    expect(matchesChecksum({ ...file!, sql: `${file!.sql}-- edit\n`, checksum: 'x' }, file!.checksum)).toBe(false);
  });

  it('has committed SQL that names no schema, so search_path decides where it lands', () => {
    for (const plane of ['control', 'data'] as const) {
      for (const file of readMigrationFiles(plane)) {
        expect(file.sql.replace(/CREATE SCHEMA IF NOT EXISTS "\w+";/, '')).not.toMatch(/"(control|data|public)"\./);
      }
    }
  });

  it('has no semicolon in a comment: the Prisma CLI splits a script at each one, comments included', () => {
    for (const plane of ['control', 'data'] as const) {
      for (const file of readMigrationFiles(plane)) {
        const commented = file.sql.split('\n').filter((line) => /--.*;/.test(line));
        expect(commented, `${plane}/${file.name}`).toEqual([]);
      }
    }
  });
});

describe('embedded data folder lock', () => {
  const dir = tempDir('kw-lock');
  afterAll(() => dir.remove());

  it('refuses a folder held by a live process and takes over a stale lock', () => {
    const lockFile = path.join(dir.path, 'pg.lock');
    const unlock = lockDataDir(lockFile);
    expect(() => lockDataDir(lockFile)).toThrow(`The embedded database is in use by process ${process.pid}`);
    unlock();
    writeFileSync(lockFile, '2147483646'); // no such process
    const again = lockDataDir(lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    again();
  });
});
