import * as z from 'zod/v4';
import type { AgentTool } from './agent-tool.js';
import { accountTools } from './tools/account-tools.js';
import { chatManagementTools } from './tools/chat-management-tools.js';
import { collectionTools } from './tools/collection-tools.js';
import { conversationTools } from './tools/conversation-tools.js';
import { fileTools } from './tools/file-tools.js';
import { fragmentTools } from './tools/fragment-tools.js';
import { searchTools } from './tools/search-tools.js';

/** Every tool, in a stable order (the order the MCP endpoint lists them in). */
export const AGENT_TOOLS: readonly AgentTool[] = Object.freeze([
  ...accountTools,
  ...fragmentTools,
  ...collectionTools,
  ...searchTools,
  ...fileTools,
  ...conversationTools,
  ...chatManagementTools,
]);

/** The tools the Cloud's MCP endpoint offers: all but those only a chat conversation can run. */
export const MCP_TOOLS: readonly AgentTool[] = Object.freeze(AGENT_TOOLS.filter((tool) => tool.runsIn !== 'chat'));

/**
 * Tools that call services only the Cloud runs: identity and workspaces (accounts, the workspace
 * list), files (not part of Hosted Zone V1) and chat (experts, embed configurations).
 */
const CLOUD_ONLY: ReadonlySet<AgentTool> = new Set([...accountTools, ...fileTools, ...chatManagementTools]);

/**
 * The tools a hosted zone's Leaf offers over MCP: those its own components (fragments, search)
 * answer. Listing tools that can only fail there would send an agent after errors.
 */
export const LEAF_MCP_TOOLS: readonly AgentTool[] = Object.freeze(MCP_TOOLS.filter((tool) => !CLOUD_ONLY.has(tool)));

const byId = new Map(AGENT_TOOLS.map((tool) => [tool.id, tool]));

/** The tool with this id, if there is one. */
export function findAgentTool(id: string): AgentTool | undefined {
  return byId.get(id);
}

/** The tool with this id if an expert may be given it (MCP-only tools are not). */
export function findAssignableTool(id: string): AgentTool | undefined {
  const tool = byId.get(id);
  return tool && tool.assignable !== false ? tool : undefined;
}

/**
 * The JSON Schema of a tool's input: an object schema with `properties`. Converted as the MCP
 * SDK converts it for `tools/list` (zod 4's `toJSONSchema`, the input side, draft-07), so MCP
 * clients and chat agents see the same schema.
 */
export function toolJsonSchema(tool: AgentTool): Record<string, unknown> {
  // Converted once per tool: a chat turn offers several, and the conversion costs milliseconds.
  let schema = schemas.get(tool);
  if (!schema) {
    schema = z.toJSONSchema(z.object(tool.inputSchema), { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
    schemas.set(tool, schema);
  }
  return schema;
}
const schemas = new WeakMap<AgentTool, Record<string, unknown>>();

/** Every tool an expert may be given, as data: what an assignment UI or a model's tool list needs. */
export function describeAgentTools(): Array<{
  id: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}> {
  return AGENT_TOOLS.filter((tool) => tool.assignable !== false).map((tool) => ({
    id: tool.id,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool),
    readOnly: tool.annotations.readOnlyHint === true,
  }));
}
