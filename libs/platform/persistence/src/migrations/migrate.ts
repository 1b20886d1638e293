import type pg from 'pg';
import { type PersistenceLogger, silentLogger } from '../logger.js';
import { PLANE_SCHEMAS, type Plane, quoteIdent } from '../planes.js';
import { MIGRATION_LOCK_KEY, withAdvisoryLock } from './advisory-lock.js';
import { type MigrationFile, matchesChecksum, readMigrationFiles } from './migration-files.js';
import { MigrationApplyError, MigrationChecksumError, MigrationFailedStateError } from './migration-errors.js';
import {
  type AppliedMigration,
  ensureMigrationsTable,
  isApplied,
  listMigrationRows,
  recordApplied,
} from './migrations-table.js';

export interface MigrateOptions {
  logger?: PersistenceLogger;
  /** The top-level prisma/ folder; found by walking up from this module when omitted. */
  prismaDir?: string;
}

export interface MigrationReport {
  plane: Plane;
  schema: string;
  /** Migrations this run applied, in order. */
  applied: string[];
  /** Migrations that were already applied before this run. */
  alreadyApplied: string[];
}

/**
 * Applies a plane's committed migrations to its schema: under an advisory lock (services
 * starting together apply each migration once), in folder order, each in its own
 * transaction with search_path = the plane's schema, recording `_prisma_migrations` rows as
 * Prisma does. Refuses to start when an applied migration's file has changed.
 */
export async function migrate(pool: pg.Pool, plane: Plane, options: MigrateOptions = {}): Promise<MigrationReport> {
  const logger = options.logger ?? silentLogger;
  const schema = PLANE_SCHEMAS[plane];
  const files = readMigrationFiles(plane, options.prismaDir);
  const client = await pool.connect();
  let broken = false;
  try {
    const report = await withAdvisoryLock(client, MIGRATION_LOCK_KEY, async () => {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await ensureMigrationsTable(client, schema);
      const done = appliedNames(plane, files, await listMigrationRows(client, schema), logger);
      const applied: string[] = [];
      for (const file of files) {
        if (!done.has(file.name) && (await applyOne(client, plane, schema, file))) applied.push(file.name);
      }
      return { plane, schema, applied, alreadyApplied: files.map((f) => f.name).filter((n) => !applied.includes(n)) };
    });
    if (report.applied.length > 0) {
      logger.info(
        { plane, schema, applied: report.applied },
        `applied ${report.applied.length} ${plane} migration(s) to schema ${schema}`,
      );
    } else {
      logger.info(
        { plane, schema, migrations: files.length },
        `schema ${schema} is up to date: no ${plane} migration to apply`,
      );
    }
    return report;
  } catch (err) {
    // A failed unlock would leave the lock held by this session: drop the connection.
    broken = !(
      err instanceof MigrationChecksumError ||
      err instanceof MigrationFailedStateError ||
      err instanceof MigrationApplyError
    );
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Names recorded as applied, after checking that their files did not change since. */
function appliedNames(
  plane: Plane,
  files: MigrationFile[],
  rows: AppliedMigration[],
  logger: PersistenceLogger,
): Set<string> {
  const byName = new Map(files.map((f) => [f.name, f]));
  const done = new Set<string>();
  for (const row of rows) {
    if (row.rolledBackAt) continue; // Prisma treats a rolled-back migration as not applied
    if (!row.finishedAt) throw new MigrationFailedStateError(plane, row.name);
    const file = byName.get(row.name);
    if (!file) {
      logger.warn(
        { plane, migration: row.name },
        `migration ${row.name} is applied but not in this version's prisma/${plane}/migrations (database is newer than the code?)`,
      );
      continue;
    }
    if (!matchesChecksum(file, row.checksum))
      throw new MigrationChecksumError(plane, row.name, row.checksum, file.checksum);
    done.add(row.name);
  }
  return done;
}

/** Applies one migration in a transaction; false when it turned out to be applied already. */
async function applyOne(client: pg.PoolClient, plane: Plane, schema: string, file: MigrationFile): Promise<boolean> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    // Checked again inside the transaction: on embedded PGlite every connection shares one
    // session, so the advisory lock excludes nobody, but transactions do run one at a time.
    if (await isApplied(client, schema, file.name)) {
      await client.query('ROLLBACK');
      return false;
    }
    const { rows } = await client.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    await client.query(file.sql);
    await recordApplied(client, schema, file, rows[0]!.now);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationApplyError(plane, file.name, err);
  }
}
