import { LEAF_MCP_TOOLS, MCP_TOOLS, type AgentTool } from '@kw/platform-agent-tools';

/** What one MCP endpoint offers: its tools and the instructions a client's model reads first. */
export interface McpToolSet {
  /**
   * `cloud`: accounts' credentials, and OAuth discovery (RFC 9728) for clients that sign in.
   * `leaf`: handoff tokens only, which the Cloud issues; no OAuth discovery (a Leaf is no
   * authorization server), and a 401 that says where a handoff token comes from.
   */
  plane: 'cloud' | 'leaf';
  tools: readonly AgentTool[];
  instructions: string;
}

export const MCP_TOOL_SET = Symbol('MCP_TOOL_SET');

const RECOVERY =
  'A result with isError explains what to do; HOSTED_ZONE_REQUIRED names the Leaf endpoint that serves the workspace.';

/** The Cloud's endpoint: every tool but those only a chat conversation runs. */
export const CLOUD_TOOL_SET: McpToolSet = {
  plane: 'cloud',
  tools: MCP_TOOLS,
  instructions: [
    'Knowledge workspaces: find, read and store knowledge (memory fragments) for the signed-in user.',
    'Start with list_workspaces; search or agentic_search to find fragments; get_fragment (or the kw://fragments/{id} resource) to read one.',
    RECOVERY,
  ].join(' '),
};

/** A hosted zone's Leaf: the tools its components (fragments, search) answer, for one workspace at a time. */
export const LEAF_TOOL_SET: McpToolSet = {
  plane: 'leaf',
  tools: LEAF_MCP_TOOLS,
  instructions: [
    "Knowledge workspaces of one hosted zone, served by the zone's Leaf: find, read and store memory fragments.",
    'The handoff token names one workspace (the Cloud lists workspaces and issues the token): pass its id as workspaceId.',
    'search or agentic_search to find fragments; get_fragment (or the kw://fragments/{id} resource) to read one.',
    'A result with isError explains what to do.',
  ].join(' '),
};
