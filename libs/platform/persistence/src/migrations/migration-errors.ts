import type { Plane } from '../planes.js';

/** An applied migration's file changed: the database no longer matches what the code expects. */
export class MigrationChecksumError extends Error {
  override readonly name = 'MigrationChecksumError';
  constructor(
    readonly plane: Plane,
    readonly migration: string,
    readonly recorded: string,
    readonly actual: string,
  ) {
    super(
      `Migration ${migration} of the ${plane} plane was modified after it was applied ` +
        `(checksum recorded ${recorded.slice(0, 12)}…, file now ${actual.slice(0, 12)}…). ` +
        `Applied migrations must not change: restore prisma/${plane}/migrations/${migration}/migration.sql and put the change in a new migration.`,
    );
  }
}

/** A `_prisma_migrations` row left unfinished (e.g. by a failed `prisma migrate deploy`). */
export class MigrationFailedStateError extends Error {
  override readonly name = 'MigrationFailedStateError';
  constructor(
    readonly plane: Plane,
    readonly migration: string,
  ) {
    super(
      `Migration ${migration} of the ${plane} plane is recorded as started but not finished. ` +
        `Repair the database by hand, then mark it with \`prisma migrate resolve --applied|--rolled-back ${migration}\`.`,
    );
  }
}

/** A migration's SQL failed; its transaction was rolled back and nothing was recorded. */
export class MigrationApplyError extends Error {
  override readonly name = 'MigrationApplyError';
  constructor(
    readonly plane: Plane,
    readonly migration: string,
    cause: unknown,
  ) {
    super(
      `Migration ${migration} of the ${plane} plane failed and was rolled back: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
