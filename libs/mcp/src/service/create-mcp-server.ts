import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServiceClient } from '@kw/platform-transport';
import { accountTools } from './tools/account-tools.js';
import { collectionTools } from './tools/collection-tools.js';
import { fragmentTools } from './tools/fragment-tools.js';
import { searchTools } from './tools/search-tools.js';
import type { ToolGroup } from './tools/tool-registry.js';
import { registerFragmentResources } from './fragment-resources.js';

export const SERVER_NAME = 'knowledge-workspace';
const TOOL_GROUPS: ToolGroup[] = [accountTools, fragmentTools, collectionTools, searchTools];

const INSTRUCTIONS = [
  'Knowledge workspaces: find, read and store knowledge (memory fragments) for the signed-in user.',
  'Start with list_workspaces; search or agentic_search to find fragments; get_fragment (or the kw://fragments/{id} resource) to read one.',
  'A result with isError explains what to do; HOSTED_ZONE_REQUIRED names the Leaf endpoint that serves the workspace.',
].join(' ');

/** One MCP server per session (the SDK binds a server to one transport). */
export function createMcpServer(client: ServiceClient, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  for (const group of TOOL_GROUPS) group(server, client);
  registerFragmentResources(server, client);
  return server;
}

/** The tools every server registers, for the description at GET /api/mcp. */
export function toolNames(client: ServiceClient): string[] {
  const names: string[] = [];
  const recorder = { registerTool: (name: string) => names.push(name) } as unknown as McpServer;
  for (const group of TOOL_GROUPS) group(recorder, client);
  return names;
}
