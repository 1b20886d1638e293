export { PLANES, PLANE_SCHEMAS, isPlane, type Plane } from './planes.js';
export type { PersistenceLogger } from './logger.js';
export { openDatabase, redactUrl, EMBEDDED_POOL, type Database, type OpenDatabaseOptions } from './open-database.js';
export type { EmbeddedServer } from './embedded/embedded-server.js';
export { startPGliteServer, EMBEDDED_MAX_CONNECTIONS, type PGliteServerOptions } from './embedded/pglite-server.js';
export { startPostgresServer, postgresBinaries, type PostgresBinaries } from './embedded/postgres-server.js';
export { migrate, type MigrateOptions, type MigrationReport } from './migrations/migrate.js';
export { readMigrationFiles, checksumOf, type MigrationFile } from './migrations/migration-files.js';
export { findPrismaDir } from './migrations/prisma-dir.js';
export {
  MigrationApplyError,
  MigrationChecksumError,
  MigrationFailedStateError,
} from './migrations/migration-errors.js';
export { PoolInsideTransactionError, insideTransaction } from './transaction-rule.js';
export { sqlStatements, sqlTransaction, type SqlExecutor } from './sql-transaction.js';
export { createBelowCap, lockUntilCommit, type Cap } from './capped-create.js';
export { isTransactionConflict, retryOnConflict } from './transaction-conflict.js';
export { realArrayLiteral } from './real-array-literal.js';
export { GroupCommit } from './group-commit.js';
export { createPrismaClient, ControlPrismaClient, DataPrismaClient } from './prisma/create-prisma-client.js';
export { Prisma as ControlPrisma, type Installation } from './generated/control/client.js';
export { Prisma as DataPrisma, type OutboxEvent } from './generated/data/client.js';
export { DATABASE, prismaClientProviders } from './nest/prisma-client.providers.js';
export { tracePool, tracePrismaClient } from './tracing/traced-database.js';
