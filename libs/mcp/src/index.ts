export * from './http/mcp-http.module.js';
