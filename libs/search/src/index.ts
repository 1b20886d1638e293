export * from './search.component.js';
