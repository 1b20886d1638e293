export * from './token-format.js';
