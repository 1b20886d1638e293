export * from './component.js';
export * from './tokens.js';
export * from './build-info.js';
export * from './lifecycle.js';
export * from './database.js';
export * from './gateway.component.js';
export * from './run-platform.js';
export * from './entitlement.providers.js';
