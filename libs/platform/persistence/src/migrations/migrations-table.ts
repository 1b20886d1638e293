import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { quoteIdent } from '../planes.js';
import type { MigrationFile } from './migration-files.js';

/** A `_prisma_migrations` row as the runner reads it. */
export interface AppliedMigration {
  name: string;
  checksum: string;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
}

/** Prisma's own definition (Postgres flavour), so `prisma migrate status/deploy` read our rows. */
export async function ensureMigrationsTable(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}."_prisma_migrations" (
    id                  VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum            VARCHAR(64) NOT NULL,
    finished_at         TIMESTAMPTZ,
    migration_name      VARCHAR(255) NOT NULL,
    logs                TEXT,
    rolled_back_at      TIMESTAMPTZ,
    started_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count INTEGER NOT NULL DEFAULT 0
  )`);
}

export async function listMigrationRows(client: pg.ClientBase, schema: string): Promise<AppliedMigration[]> {
  const { rows } = await client.query<{
    migration_name: string;
    checksum: string;
    finished_at: Date | null;
    rolled_back_at: Date | null;
  }>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM ${quoteIdent(schema)}."_prisma_migrations" ORDER BY started_at, migration_name`,
  );
  return rows.map((r) => ({
    name: r.migration_name,
    checksum: r.checksum,
    finishedAt: r.finished_at,
    rolledBackAt: r.rolled_back_at,
  }));
}

/** Whether the migration is recorded as applied (finished, not rolled back). */
export async function isApplied(client: pg.ClientBase, schema: string, name: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `SELECT 1 FROM ${quoteIdent(schema)}."_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    [name],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Records a successful migration the way Prisma's deploy leaves it: one row, one applied
 * step, finished_at set, no logs. Runs inside the migration's transaction.
 */
export async function recordApplied(
  client: pg.ClientBase,
  schema: string,
  file: MigrationFile,
  startedAt: Date,
): Promise<void> {
  await client.query(
    `INSERT INTO ${quoteIdent(schema)}."_prisma_migrations"
       (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
     VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
    [randomUUID(), file.checksum, file.name, startedAt],
  );
}
