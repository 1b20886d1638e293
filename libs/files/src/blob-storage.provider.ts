import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import { BLOB_STORAGE, createBlobStorage } from '@kw/platform-storage';

/**
 * Where file bytes live, for both sides of the component: the HTTP edge streams uploads and
 * downloads, the service deletes and processes. In the distributed mode both must see the same
 * store: S3, or one DATA_DIR shared by the gateway and the files process (docs/files.md).
 */
export const blobStorageProvider = {
  provide: BLOB_STORAGE,
  useFactory: (config: AppConfig) => createBlobStorage(config),
  inject: [APP_CONFIG],
};
