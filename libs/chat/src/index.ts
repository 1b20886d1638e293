export * from './chat.component.js';
