export * from './webhooks.component.js';
