export * from './rate-limit-store.js';
export * from './memory-rate-limit-store.js';
export * from './postgres-rate-limit-store.js';
export * from './batched-rate-limit-store.js';
export * from './rate-limiter.js';
export * from './rate-limit-response.js';
export * from './failed-auth-throttle.js';
