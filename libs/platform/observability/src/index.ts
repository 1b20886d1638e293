export * from './logger.js';
export * from './nest-logger.js';
export * from './metrics.js';
