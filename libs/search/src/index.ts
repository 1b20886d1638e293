export * from './search.component.js';
export { SEARCH_DB, type SearchDb } from './service/search-db.js';
