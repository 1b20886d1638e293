export * from './workspaces.component.js';
