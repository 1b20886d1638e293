export * from './search.component.js';
export { SEARCH_DB, type SearchDb } from './persistence/search-database.js';
