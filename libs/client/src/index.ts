export * from './errors.js';
export * from './types.js';
export { KnowledgeClient, type KnowledgeClientOptions } from './knowledge-client.js';
export { WorkspaceClient } from './workspace-client.js';
export { HandoffCache, RENEW_BEFORE_MS } from './handoff-cache.js';
export type { FetchLike } from './http.js';
