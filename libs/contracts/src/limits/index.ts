// Field limits of contract messages: one definition that DTOs, handlers, MCP tool schemas and docs read.
export * from './fragments.js';
export * from './workspaces.js';
export * from './webhooks.js';
export * from './vault.js';
export * from './embed.js';
export * from './search.js';
export * from './paging.js';
export { MESSAGE_LIMITS, limitsFor, type FieldRule, type MessageLimits } from './rules.js';
export { limitViolations, charCount, cutText, utf8Bytes, type FieldViolation } from './check.js';
export { renderLimitsTable, withLimitsTable, LIMITS_DOC_PATH, LIMITS_DOC_BEGIN, LIMITS_DOC_END } from './doc.js';
