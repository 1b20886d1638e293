export * from './plan-catalog.js';
export * from './account-limits.js';
export * from './plan-limit-errors.js';
export * from './limit-notices.js';
export * from './per-account-cache.js';
