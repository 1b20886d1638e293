import type { AppConfig } from '@kw/platform-config';
import { BLOB_STORAGE, createBlobStorage } from '@kw/platform-storage';
import { APP_CONFIG } from './tokens.js';

/**
 * Where blobs live (file bytes, workspace archives), for both sides of a component: the HTTP
 * edge streams uploads and downloads, the service writes and reads. In the distributed mode both
 * must see the same store: S3, or one DATA_DIR shared by the gateway and the component's process
 * (docs/files.md).
 */
export const blobStorageProvider = {
  provide: BLOB_STORAGE,
  useFactory: (config: AppConfig) => createBlobStorage(config),
  inject: [APP_CONFIG],
};
