import path from 'node:path';
import type { BlobStorage } from './blob-storage.js';
import { LocalDiskStorage } from './local-disk-storage.js';

/** Nest injection token of the process's BlobStorage. */
export const BLOB_STORAGE = Symbol('BLOB_STORAGE');

/** The settings this needs (AppConfig has them); structural, so the library stays independent. */
export interface BlobStorageConfig {
  DATA_DIR: string;
  S3_ENDPOINT?: string;
  S3_BUCKET?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  S3_REGION?: string;
  S3_FORCE_PATH_STYLE: boolean;
}

/**
 * S3 when S3_BUCKET is set (AWS itself unless S3_ENDPOINT names another server), its bucket
 * created if missing; otherwise files under DATA_DIR/files. Ready to use once it resolves.
 */
export async function createBlobStorage(config: BlobStorageConfig): Promise<BlobStorage> {
  if (!config.S3_BUCKET) return new LocalDiskStorage(path.join(config.DATA_DIR, 'files'));
  // Loaded here, not at start-up: every process with blob storage would pay for the AWS SDK.
  const { S3Storage } = await import('./s3-storage.js');
  const storage = new S3Storage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION ?? 'us-east-1',
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
  try {
    await storage.ensureBucket();
  } catch (err) {
    await storage.close();
    throw err;
  }
  return storage;
}
