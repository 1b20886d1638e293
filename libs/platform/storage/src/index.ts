export * from './blob-storage.js';
export { MAX_KEY_LENGTH, assertValidKey } from './blob-key.js';
export * from './local-disk-storage.js';
// Types only: the S3 client (about 130 ms of module loading) is imported where S3 is configured.
export type { S3Storage, S3StorageOptions } from './s3-storage.js';
export * from './create-blob-storage.js';
