export * from './query-reading.js';
export * from './search-text.js';
