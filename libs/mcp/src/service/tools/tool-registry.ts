import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServiceClient } from '@kw/platform-transport';

/** Registers a group of tools on a server; each call goes through `client` as the caller. */
export type ToolGroup = (server: McpServer, client: ServiceClient) => void;

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
export const WRITES = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
