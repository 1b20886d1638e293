export * from './leaf.component.js';
