import { create } from '@bufbuild/protobuf';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthContextSchema } from '@kw/contracts';
import { requestContext, type AuthContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import type { ServiceClient } from '@kw/platform-transport';
import { createMcpServer } from './create-mcp-server.js';
import { CLOUD_TOOL_SET, LEAF_TOOL_SET, type McpToolSet } from './mcp-tool-set.js';

// The server alone, over the SDK's in-memory transport, with the service client stood in:
// what is tested is what the MCP layer adds (registration, the caller's context, error
// results). The real services behind it are covered by test/e2e/mcp.

interface Call {
  method: string;
  input: unknown;
  auth?: AuthContext;
  requestId?: string;
}

/** A service client answering by method name; records each call with the context it ran in. */
function stubClient(answers: Record<string, (input: unknown) => unknown>) {
  const calls: Call[] = [];
  const client = {
    call: async (method: { name: string }, input: unknown) => {
      const ctx = requestContext.current();
      calls.push({ method: method.name, input, auth: ctx?.auth, requestId: ctx?.requestId });
      const answer = answers[method.name];
      if (!answer) throw new Error(`unexpected call ${method.name}`);
      return answer(input);
    },
  } as unknown as ServiceClient;
  return { client, calls };
}

const auth = create(AuthContextSchema, {
  userId: '8f7d1c52-7c39-4a53-9a55-1b1cf1f4a001',
  credentialId: 'tok-1',
  credentialKind: 'pat',
  scopes: ['fragments:read'],
  allWorkspaces: true,
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** Connects an SDK client; every message reaches the server with `authInfo` as the controller attaches it. */
async function connect(client: ServiceClient, caller: AuthInfo | undefined, toolSet: McpToolSet = CLOUD_TOOL_SET) {
  const server = createMcpServer(client, '1.2.3', toolSet);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const deliver = serverSide.onmessage!;
  serverSide.onmessage = (message: JSONRPCMessage, extra?: { authInfo?: AuthInfo }) =>
    deliver(message, { ...extra, authInfo: caller });
  const mcp = new Client({ name: 'unit', version: '0' });
  await mcp.connect(clientSide);
  clients.push(mcp);
  return mcp;
}

const callerInfo: AuthInfo = { token: 'x', clientId: 'tok-1', scopes: [], extra: { auth, requestId: 'req-mcp-1' } };

describe('createMcpServer', () => {
  it('announces itself and registers every tool of the groups, each with a schema and a read/write hint', async () => {
    const { client } = stubClient({});
    const mcp = await connect(client, callerInfo);
    expect(mcp.getServerVersion()).toEqual({ name: 'knowledge-workspace', version: '1.2.3' });
    expect(mcp.getInstructions()).toContain('list_workspaces');

    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(CLOUD_TOOL_SET.tools.map((t) => t.id).sort());
    expect(tools.length).toBeGreaterThanOrEqual(8);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(tool.description, tool.name).toBeTruthy();
    }
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly).toEqual(expect.arrayContaining(['whoami', 'list_workspaces', 'search', 'get_fragment']));
    expect(readOnly).not.toContain('create_fragment');

    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['kw://fragments/{fragmentId}']);
  });

  it("offers on a Leaf only the tools its components answer, and tells the model to name the handoff's workspace", async () => {
    const { client } = stubClient({});
    const mcp = await connect(client, callerInfo, LEAF_TOOL_SET);
    expect(mcp.getInstructions()).toContain('workspaceId');
    expect(mcp.getInstructions()).not.toContain('list_workspaces');
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['search', 'agentic_search', 'related', 'get_fragment', 'create_fragment']),
    );
    expect(names).toEqual(expect.arrayContaining(['list_fragments', 'list_collections', 'add_to_collection']));
    // Identity and workspaces, files and chat live in the Cloud only.
    for (const cloudOnly of [
      'whoami',
      'list_workspaces',
      'search_workspace_files',
      'read_workspace_file',
      'list_experts',
    ])
      expect(names).not.toContain(cloudOnly);
    const unknown = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(unknown.isError).toBe(true);
  });

  it('points a NOT_FOUND at the tools this endpoint offers: on a Leaf, not list_workspaces', async () => {
    const missing = () => {
      throw new AppError({ status: 404, code: 'NOT_FOUND', message: 'Fragment not found' });
    };
    const { client } = stubClient({ GetFragment: missing });
    const fragmentId = '8f7d1c52-7c39-4a53-9a55-1b1cf1f4a0ff';
    const text = async (toolSet: McpToolSet) => {
      const mcp = await connect(client, callerInfo, toolSet);
      const result = await mcp.callTool({ name: 'get_fragment', arguments: { fragmentId } });
      expect(result.isError).toBe(true);
      return (result.content as Array<{ text: string }>)[0].text;
    };
    const atLeaf = await text(LEAF_TOOL_SET);
    expect(atLeaf).toMatch(
      /^NOT_FOUND: Fragment not found\. Check the id \(list_fragments and search return valid ids\)/,
    );
    expect(atLeaf).not.toContain('list_workspaces');
    expect(await text(CLOUD_TOOL_SET)).toContain('list_workspaces, list_fragments and search return valid ids');
  });

  it("runs a tool's service calls as the HTTP request's caller, with its request id", async () => {
    const { client, calls } = stubClient({
      GetProfile: () => ({ user: { id: auth.userId, email: 'ada@example.com', displayName: 'Ada' } }),
    });
    const mcp = await connect(client, callerInfo);
    const result = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      user: { id: auth.userId, email: 'ada@example.com', displayName: 'Ada' },
      credential: { kind: 'pat', scopes: ['fragments:read'], workspaces: 'all' },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GetProfile', requestId: 'req-mcp-1' });
    expect(calls[0].auth).toEqual(auth);
  });

  it('answers a platform error as an isError result that says what to do, not as a protocol error', async () => {
    const { client } = stubClient({
      ListAccessibleWorkspaces: () => {
        throw new AppError({
          status: 409,
          code: 'HOSTED_ZONE_REQUIRED',
          message: 'served by a hosted zone',
          details: { hostedZoneId: 'hz-1', endpointUrl: 'https://leaf.example.com' },
        });
      },
    });
    const mcp = await connect(client, callerInfo);
    const result = await mcp.callTool({ name: 'list_workspaces', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text).toMatch(/^HOSTED_ZONE_REQUIRED: /);
    expect(text).toContain('https://leaf.example.com/api/mcp');
  });

  it('never shows the text of an unexpected failure', async () => {
    const { client } = stubClient({
      ListAccessibleWorkspaces: () => {
        throw new Error('connection to 10.0.0.7:5432 refused (password=hunter2)');
      },
    });
    const mcp = await connect(client, callerInfo);
    const result = await mcp.callTool({ name: 'list_workspaces', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text).toBe('The platform failed to run this tool (an internal error). Try again later.');
  });

  it('refuses a message that carries no caller without calling any service', async () => {
    const { client, calls } = stubClient({});
    const mcp = await connect(client, undefined);
    const result = await mcp.callTool({ name: 'list_workspaces', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^UNAUTHENTICATED: /);
    expect(calls).toEqual([]);
  });
});
