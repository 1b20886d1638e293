import { describe, expect, it } from 'vitest';
import {
  AGENTIC_QUERY_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  GRAPH_QUERY_MAX,
  SEARCH_QUERY_MAX,
  WEB_SEARCH_QUERY_MAX,
} from '@kw/contracts';
import { AGENT_TOOLS, describeAgentTools, findAgentTool, findAssignableTool, toolJsonSchema } from './agent-tools.js';

describe('the agent tool registry', () => {
  it('gives every tool a unique id made of lower-case letters, digits and underscores', () => {
    const ids = AGENT_TOOLS.map((t) => t.id);
    expect(ids.length).toBeGreaterThanOrEqual(8);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('describes every input as a JSON Schema object with properties', () => {
    for (const tool of AGENT_TOOLS) {
      const schema = toolJsonSchema(tool);
      expect(schema.type, tool.id).toBe('object');
      expect(schema.properties, tool.id).toBeTypeOf('object');
      expect(Object.keys(schema.properties as object).sort(), tool.id).toEqual(Object.keys(tool.inputSchema).sort());
    }
  });

  it('describes the assignable tools of the registry, in its order', () => {
    const described = describeAgentTools();
    expect(described.map((d) => d.id)).toEqual(AGENT_TOOLS.filter((t) => t.assignable !== false).map((t) => t.id));
    for (const d of described) {
      expect(d.description, d.id).toBeTruthy();
      expect(d.inputSchema.type, d.id).toBe('object');
    }
    const readOnly = described.filter((d) => d.readOnly).map((d) => d.id);
    expect(readOnly).toEqual(expect.arrayContaining(['whoami', 'list_workspaces', 'search', 'get_fragment']));
    expect(readOnly).not.toContain('create_fragment');
  });

  it('lets the search tool take a query as long as the search routes do (a pasted passage)', () => {
    const query = toolJsonSchema(findAgentTool('search')!).properties as Record<string, { maxLength?: number }>;
    expect(query.query!.maxLength).toBe(SEARCH_QUERY_MAX);
    expect(SEARCH_QUERY_MAX).toBe(8_000);
  });

  it('bounds every other query as its route does (the service checks the same contract limit)', () => {
    const maxLength = (id: string) =>
      (toolJsonSchema(findAgentTool(id)!).properties as Record<string, { maxLength?: number }>).query!.maxLength;
    expect(maxLength('agentic_search')).toBe(AGENTIC_QUERY_MAX);
    expect(AGENTIC_QUERY_MAX).toBe(SEARCH_QUERY_MAX);
    expect(maxLength('related')).toBe(GRAPH_QUERY_MAX);
    expect(maxLength('web_search')).toBe(WEB_SEARCH_QUERY_MAX);
    expect(maxLength('search_workspace_files')).toBe(FILE_SEARCH_QUERY_MAX_CHARS);
  });

  it('finds a tool by id, and nothing for an unknown id', () => {
    expect(findAgentTool('search')?.id).toBe('search');
    expect(findAgentTool('search')).toBe(AGENT_TOOLS.find((t) => t.id === 'search'));
    expect(findAgentTool('no_such_tool')).toBeUndefined();
  });

  it('keeps the management tools for MCP clients: an expert cannot be given them', () => {
    for (const id of ['list_experts', 'create_expert', 'archive_embed_config']) {
      expect(findAgentTool(id)?.id, id).toBe(id);
      expect(findAssignableTool(id), id).toBeUndefined();
      expect(describeAgentTools().map((d) => d.id)).not.toContain(id);
    }
    expect(findAssignableTool('search')?.id).toBe('search');
  });
});
