import type * as z from 'zod/v4';
import type { ServiceClient } from '@kw/platform-transport';

/** Hints about what a tool does, as MCP's ToolAnnotations name them. */
export interface AgentToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
  idempotentHint?: boolean;
}

/**
 * A tool an AI agent may call: data (name, description, input schema) plus the function that
 * runs it. Independent of MCP: the MCP endpoint registers each one on its server, and chat
 * agents offer them to a model.
 */
export interface AgentTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  /** The tool's name (the MCP tool name), e.g. 'search'. */
  id: string;
  title: string;
  description: string;
  /** The input as a zod (v4) raw shape, as the MCP SDK takes it. */
  inputSchema: Shape;
  annotations: AgentToolAnnotations;
  /** false: offered to MCP clients only, never assignable to an expert (managing experts, say). Default true. */
  assignable?: boolean;
  /**
   * 'chat': the chat agent loop runs it itself (it pauses the turn, or needs the chat runtime's
   * providers), so MCP does not offer it and `run` is never called.
   */
  runsIn?: 'chat';
  /**
   * Runs as the caller of the current request context (the ServiceClient carries it to every
   * service, which authorizes exactly as for the REST route). The result is a JSON object.
   */
  run(args: z.infer<z.ZodObject<Shape>>, client: ServiceClient): Promise<Record<string, unknown>>;
}

/** Types `run`'s arguments from the tool's own input shape. */
export function defineAgentTool<Shape extends z.ZodRawShape>(tool: AgentTool<Shape>): AgentTool<Shape> {
  return tool;
}

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
export const WRITES = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;
