export * from './request-context.js';
