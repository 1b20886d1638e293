import type { Action } from '@kw/platform-access-policy';

/**
 * What an MCP client is asked to request when it connects without naming scopes
 * (docs/mcp.md#scopes): everyday use of the tools, reading the workspaces, their fragments,
 * collections and files, searching, and storing fragments. Nothing that deletes, moves content
 * between collections or reaches beyond the tools. Sent as the `scope` of the 401's
 * `WWW-Authenticate`, which MCP clients request before any other list (SEP-835); a client
 * wanting more asks for it by name.
 */
export const MCP_DEFAULT_SCOPES: readonly Action[] = [
  'workspaces:read',
  'profile:read',
  'search:read',
  'fragments:read',
  'fragments:write',
  'collections:read',
  'files:read',
];

/**
 * Every delegable scope one of the endpoint's tools needs (RFC 9728 `scopes_supported`): a token
 * bound to /api/mcp can use no other (the expert and embed configuration tools need
 * `applications:manage`, which OAuth clients never hold).
 */
export const MCP_SCOPES: readonly Action[] = [...MCP_DEFAULT_SCOPES, 'fragments:delete', 'collections:write'];
