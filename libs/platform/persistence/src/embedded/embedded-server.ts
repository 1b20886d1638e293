/** A database server the platform runs itself in embedded mode (PostgreSQL's binaries, or PGlite). */
export interface EmbeddedServer {
  /** postgres:// URL for pg, Prisma's adapter or psql. */
  connectionString: string;
  /** The cluster's folder inside DATA_DIR. */
  dataPath: string;
  /** Stops the server (committed data on disk) and releases the folder. Idempotent. */
  stop(): Promise<void>;
}
