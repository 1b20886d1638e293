export * from './secret-box.js';
export * from './envelope.js';
export * from './load-secret-box.js';
