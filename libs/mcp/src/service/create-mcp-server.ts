import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServiceClient } from '@kw/platform-transport';
import { registerFragmentResources } from './fragment-resources.js';
import type { McpToolSet } from './mcp-tool-set.js';
import { runTool } from './tool-context.js';

export const SERVER_NAME = 'knowledge-workspace';

/** One MCP server per session (the SDK binds a server to one transport). */
export function createMcpServer(client: ServiceClient, version: string, toolSet: McpToolSet): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    { capabilities: { tools: {}, resources: {} }, instructions: toolSet.instructions },
  );
  // The tools are the platform's one registry (@kw/platform-agent-tools), shared with chat agents;
  // each call runs as the caller of the HTTP request that carried it.
  for (const tool of toolSet.tools) {
    const { title, description, inputSchema, annotations } = tool;
    server.registerTool(tool.id, { title, description, inputSchema, annotations }, (args, extra) =>
      runTool(extra, () => tool.run(args, client), toolSet),
    );
  }
  // The SDK looks tools up by name in a plain object: `toString` or `constructor` would find the
  // object's prototype and answer "Tool toString disabled". Without one, they are unknown tools.
  Object.setPrototypeOf((server as unknown as { _registeredTools: object })._registeredTools, null);
  registerFragmentResources(server, client);
  return server;
}
