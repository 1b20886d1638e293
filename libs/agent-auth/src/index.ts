export * from './agent-auth.component.js';
