export * from './files-beside-search.js';
