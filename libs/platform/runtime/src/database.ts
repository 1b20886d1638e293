import { migrate, openDatabase, type Database } from '@kw/platform-persistence';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { buildInfo } from './build-info.js';
import type { DatabasePlane } from './component.js';

export type PlatformDatabase = Database;

/**
 * Opens the process's database (DATABASE_URL, or the embedded server in DATA_DIR) and applies
 * the migrations of the planes its components need. Migrations run under an advisory lock,
 * so components starting together apply each migration once.
 */
export async function openPlatformDatabase(
  config: AppConfig,
  planes: DatabasePlane[],
  logger: Logger,
): Promise<PlatformDatabase> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    engine: config.EMBEDDED_DATABASE,
    logger,
  });
  try {
    for (const plane of planes) {
      const report = await migrate(database.pool, plane, { logger });
      for (const name of report.applied) logger.info({ plane, migration: name }, 'migration applied');
      logger.info(
        { plane, applied: report.applied.length, alreadyApplied: report.alreadyApplied.length },
        'migrations up to date',
      );
    }
    if (planes.includes('control')) {
      const installation = await ensureInstallation(database);
      logger.info({ installationId: installation.id, createdAt: installation.createdAt }, 'installation');
    }
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** The installation's identity: created once, on the first start against an empty database. */
async function ensureInstallation(database: Database): Promise<{ id: string; createdAt: string }> {
  const client = await database.pool.connect();
  try {
    await client.query('BEGIN');
    // Components of a fresh distributed install start together: one of them creates the row.
    await client.query('LOCK TABLE control.installation IN EXCLUSIVE MODE');
    await client.query(
      'INSERT INTO control.installation (platform_version) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM control.installation)',
      [buildInfo().version],
    );
    const { rows } = await client.query<{ id: string; created_at: Date }>(
      'SELECT id, created_at FROM control.installation ORDER BY created_at LIMIT 1',
    );
    await client.query('COMMIT');
    return { id: rows[0].id, createdAt: rows[0].created_at.toISOString() };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
