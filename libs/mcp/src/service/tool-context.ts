import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuthContext } from '@kw/platform-context';
import { requestContext } from '@kw/platform-context';
import { unauthenticated } from '@kw/platform-http';
import type { McpToolSet } from './mcp-tool-set.js';
import { toolError, toolOk } from './tool-result.js';

/** What the MCP controller attaches to each HTTP request (the SDK hands it to handlers as authInfo). */
export interface McpAuthExtra {
  auth: AuthContext;
  requestId: string;
  [key: string]: unknown;
}

interface HandlerExtra {
  authInfo?: AuthInfo;
}

/** The caller of this JSON-RPC message: the credential of the HTTP request that carried it. */
export function callerOf(extra: HandlerExtra): McpAuthExtra {
  const info = extra.authInfo?.extra as McpAuthExtra | undefined;
  if (!info?.auth) throw unauthenticated();
  return info;
}

/**
 * Runs a tool's work as the caller, in a request context of its own, so every service call
 * carries the caller's AuthContext and each service re-checks authorization exactly as for
 * the REST route. Errors become isError results.
 */
export async function runTool(
  extra: HandlerExtra,
  work: () => Promise<Record<string, unknown>>,
  toolSet?: McpToolSet,
): Promise<CallToolResult> {
  try {
    const { auth, requestId } = callerOf(extra);
    return toolOk(await requestContext.run({ requestId, auth }, work));
  } catch (err) {
    return toolError(err, toolSet);
  }
}
