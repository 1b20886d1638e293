export * from './app-config.js';
export * from './refuse-bad-config.js';
export * from './plans-table.js';
