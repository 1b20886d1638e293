export * from './fetch-token-authentication.js';
export * from './token-authentication-cache.js';
export * from './token-usage-recorder.js';
export * from './token-use.js';
