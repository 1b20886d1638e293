import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { call, connectMcp } from './mcp-fixture.js';

type Bounds = { minimum?: number; maximum?: number };

/**
 * The MCP tools take the paging arguments (limit, offset, depth...) within the bounds of their
 * REST twins, as both publish them: the tool's JSON Schema (tools/list) and the route's OpenAPI
 * description. A tool once took any offset and answered nothing past the route's bound.
 */
describe('MCP tools page like their REST routes', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: { id: string };
  let client: Client;
  let tools: Map<string, Record<string, Bounds>>;
  let openapi: any;

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    ws = await p.workspace(owner);
    client = await connectMcp(p.platform.url, owner.auth);
    const listed = await client.listTools();
    tools = new Map(listed.tools.map((t) => [t.name, t.inputSchema.properties as Record<string, Bounds>]));
    openapi = await (await fetch(`${p.platform.url}/api/docs`)).json();
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await p?.stop();
  });

  const query = (path: string, name: string): Bounds =>
    openapi.paths[path].get.parameters.find((q: any) => q.in === 'query' && q.name === name).schema;
  const body = (schema: string, name: string): Bounds => openapi.components.schemas[schema].properties[name];
  const bounds = ({ minimum, maximum }: Bounds) => ({ minimum, maximum });

  it("publishes each paging argument with its route's bounds", () => {
    const same: Array<[string, string, Bounds]> = [
      ['search', 'limit', query('/api/search', 'limit')],
      ['search', 'offset', query('/api/search', 'offset')],
      ['agentic_search', 'maxLeads', body('AgenticSearchDto', 'maxLeads')],
      ['related', 'depth', body('GraphRetrieveDto', 'depth')],
      ['related', 'limit', body('GraphRetrieveDto', 'limit')],
      ['list_fragments', 'offset', query('/api/memory-fragments', 'offset')],
      ['list_workspace_files', 'limit', query('/api/files', 'limit')],
      ['list_workspace_files', 'offset', query('/api/files', 'offset')],
      ['search_workspace_files', 'limit', query('/api/files/search', 'limit')],
      ['search_workspace_files', 'offset', query('/api/files/search', 'offset')],
      ['read_workspace_file', 'fromChunk', query('/api/files/{id}/chunks', 'offset')],
      ['list_experts', 'limit', query('/api/v2/experts', 'limit')],
      ['list_experts', 'offset', query('/api/v2/experts', 'offset')],
      ['list_embed_configs', 'limit', query('/api/v2/configs', 'limit')],
      ['list_embed_configs', 'offset', query('/api/v2/configs', 'offset')],
    ];
    for (const [tool, argument, rest] of same) {
      expect(rest.maximum, `${tool}.${argument}: the route publishes a maximum`).toBeTypeOf('number');
      expect(bounds(tools.get(tool)![argument]!), `${tool}.${argument}`).toEqual(bounds(rest));
    }
    // Two tools answer less per call than their routes, on purpose (docs/mcp.md): a model's
    // context is not a download. Never more.
    const fewer: Array<[string, string, Bounds]> = [
      ['list_fragments', 'limit', query('/api/memory-fragments', 'limit')],
      ['read_workspace_file', 'maxChunks', query('/api/files/{id}/chunks', 'limit')],
    ];
    for (const [tool, argument, rest] of fewer)
      expect(tools.get(tool)![argument]!.maximum, `${tool}.${argument}`).toBeLessThan(rest.maximum!);
  });

  it('search refuses an offset the REST route refuses, as a tool error naming it; takes the last one', async () => {
    const depth = query('/api/search', 'offset').maximum!;
    expect(depth).toBe(500);
    const rest = await p.api.call(owner.auth, 'GET', `/api/search?workspaceId=${ws.id}&q=anything&offset=${depth + 1}`);
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'offset' }] });
    for (const args of [{ workspaceId: ws.id }, {}]) {
      const refused = await call(client, 'search', { query: 'anything', offset: depth + 1, ...args });
      expect(refused.isError, refused.text).toBe(true);
      expect(refused.text).toMatch(/offset/);
      expect(refused.text).toMatch(/500/);
      const last = await call(client, 'search', { query: 'anything', offset: depth, ...args });
      expect(last.isError, last.text).toBe(false);
      expect(last.data.hits).toEqual([]);
    }
  });

  it('the other tools refuse what their routes refuse and take what they take', async () => {
    const fragmentsOffset = query('/api/memory-fragments', 'offset').maximum!;
    const refused = await call(client, 'list_fragments', { workspaceId: ws.id, offset: fragmentsOffset + 1 });
    expect(refused.isError, refused.text).toBe(true);
    expect(refused.text).toMatch(/offset/);
    const filesOffset = query('/api/files/search', 'offset').maximum!;
    const files = await call(client, 'search_workspace_files', {
      workspaceId: ws.id,
      query: 'anything',
      offset: filesOffset + 1,
    });
    expect(files.isError, files.text).toBe(true);
    expect(files.text).toMatch(/offset/);
    // The graph route takes 100 results; the tool used to refuse more than 50.
    const graphLimit = body('GraphRetrieveDto', 'limit').maximum!;
    const related = await call(client, 'related', { workspaceId: ws.id, query: 'anything', limit: graphLimit });
    expect(related.isError, related.text).toBe(false);
    expect((await call(client, 'related', { workspaceId: ws.id, query: 'x', limit: graphLimit + 1 })).isError).toBe(
      true,
    );
  });
});
