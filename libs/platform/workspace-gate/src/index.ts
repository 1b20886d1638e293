export * from './workspace-gate.js';
