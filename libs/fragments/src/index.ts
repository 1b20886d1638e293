export * from './fragments.component.js';
