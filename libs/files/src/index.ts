export * from './files.component.js';
