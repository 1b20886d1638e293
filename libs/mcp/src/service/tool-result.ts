import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@kw/platform-errors';
import type { McpToolSet } from './mcp-tool-set.js';

/** Tools whose answers carry ids a model can use; a hint names only those the endpoint offers. */
const ID_SOURCES = ['list_workspaces', 'list_fragments', 'search'];

/** A successful tool call: the result as JSON text an AI can read, and as structured content. */
export function toolOk(result: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
}

/**
 * A failed tool call is a result with isError (the MCP spec: the model sees it and can act),
 * not a protocol error. The message says what went wrong and what to do next; internal
 * failures say only that, with the error id the logs have. A platform error also comes as
 * structured content shaped like its REST body, `{error, code, ...fields}` (existingId,
 * currentVersion...), so a program reads the same fields as over REST.
 */
export function toolError(err: unknown, toolSet?: McpToolSet): CallToolResult {
  const text = messageFor(err, toolSet);
  if (!AppError.isAppError(err)) return { isError: true, content: [{ type: 'text', text }] };
  // What REST keeps out of its body (headers' material) stays out here too. The tools declare no
  // outputSchema: the SDK client checks any structuredContent against one, an error's included.
  const { allow: _allow, retryAfterSeconds: _retry, ...fields } = err.details ?? {};
  return {
    isError: true,
    content: [{ type: 'text', text }],
    structuredContent: { error: err.message, code: err.code, ...fields },
  };
}

function messageFor(err: unknown, toolSet?: McpToolSet): string {
  if (!AppError.isAppError(err)) return 'The platform failed to run this tool (an internal error). Try again later.';
  const details = err.details ?? {};
  switch (err.code) {
    case 'HOSTED_ZONE_REQUIRED':
      return `HOSTED_ZONE_REQUIRED: this workspace's content lives in hosted zone ${String(details.hostedZoneId)}. Ask the Cloud for a handoff token (POST /api/workspaces/{id}/handoff) and call the same tool on the zone's MCP endpoint at ${String(details.endpointUrl)}/api/mcp.`;
    case 'NOT_FOUND':
      return `NOT_FOUND: ${err.message}. Check the id (${idSources(toolSet)} return valid ids); items you may not see also read as not found.`;
    case 'FORBIDDEN':
      return `FORBIDDEN: ${err.message}. Your role or your token's scopes do not allow this; a workspace owner can change your role, or use a token with the needed scope.`;
    case 'UNAUTHENTICATED':
      return toolSet?.plane === 'leaf'
        ? 'UNAUTHENTICATED: the handoff token is no longer valid. Ask the Cloud for a new one (POST /api/workspaces/{id}/handoff).'
        : 'UNAUTHENTICATED: the credential is no longer valid. Sign in again or use a new token.';
    case 'RATE_LIMITED':
      return `RATE_LIMITED: ${err.message}. Wait and retry.`;
    case 'KEY_EXISTS':
      return `KEY_EXISTS: ${err.message} (existingId: ${String(details.existingId)}). Update that fragment with update_fragment, or use another key.`;
    case 'VERSION_CONFLICT':
      return `VERSION_CONFLICT: ${err.message} (currentVersion: ${String(details.currentVersion)}). Read the fragment again (get_fragment) and retry with its version.`;
    default: {
      const field =
        typeof details.field === 'string' ? ` (field: ${details.field})` : err.param ? ` (field: ${err.param})` : '';
      return `${err.code}: ${err.message}${field}.`;
    }
  }
}

/** "list_workspaces, list_fragments and search", or the part of it this endpoint offers. */
function idSources(toolSet: McpToolSet | undefined): string {
  const offered = ID_SOURCES.filter((id) => !toolSet || toolSet.tools.some((t) => t.id === id));
  return offered.length > 1 ? `${offered.slice(0, -1).join(', ')} and ${offered.at(-1)}` : (offered[0] ?? 'search');
}
