export * from './blob-storage.js';
export { MAX_KEY_LENGTH, assertValidKey } from './blob-key.js';
export * from './local-disk-storage.js';
export * from './s3-storage.js';
export * from './create-blob-storage.js';
