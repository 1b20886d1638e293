import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServiceClient } from '@kw/platform-transport';
import { MCP_TOOLS } from '@kw/platform-agent-tools';
import { registerFragmentResources } from './fragment-resources.js';
import { runTool } from './tool-context.js';

export const SERVER_NAME = 'knowledge-workspace';

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
  // The tools are the platform's one registry (@kw/platform-agent-tools), shared with chat agents;
  // each call runs as the caller of the HTTP request that carried it.
  for (const tool of MCP_TOOLS) {
    const { title, description, inputSchema, annotations } = tool;
    server.registerTool(tool.id, { title, description, inputSchema, annotations }, (args, extra) =>
      runTool(extra, () => tool.run(args, client)),
    );
  }
  registerFragmentResources(server, client);
  return server;
}

/**
 * The tools every server registers, for the description at GET /api/mcp. The list does not depend
 * on the client (the argument stays for callers written when it did).
 */
export function toolNames(_client?: ServiceClient): string[] {
  return MCP_TOOLS.map((tool) => tool.id);
}
