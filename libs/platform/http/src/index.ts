export * from './error-response.js';
export * from './error-responder.js';
export * from './route-table.js';
export * from './validation.js';
export * from './http-edge.js';
export * from './openapi.js';
export * from './auth/index.js';
export * from './public-base.js';
