export * from './agent-tool.js';
export * from './agent-tools.js';
export * from './tool-limits.js';
