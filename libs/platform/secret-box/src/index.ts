export * from './secret-box.js';
export * from './load-secret-box.js';
