export * from './mcp-http.module.js';
