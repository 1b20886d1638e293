import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createToken } from '../../support/accounts.js';
import { call as mcpCall, connectMcp } from '../mcp/mcp-fixture.js';
import { call, startChatPlatform } from './chat-fixture.js';

/**
 * Experts and embed configurations managed through the MCP endpoint with the official SDK
 * client: the same rules as REST (own only, a readable workspace, known tools,
 * `applications:manage`), and what one side makes the other sees.
 */
describe('experts and embed configurations over MCP', () => {
  let p: Awaited<ReturnType<typeof startChatPlatform>>;
  let owner: { token: string; user: { id: string } };
  let stranger: { token: string };
  let client: Client;
  let ws: string;

  beforeAll(async () => {
    p = await startChatPlatform();
    owner = await p.person();
    stranger = await p.person();
    ws = (await call(p.base, owner.token, 'POST', '/api/workspaces', { name: 'mcp' })).body.workspace.id;
    client = await connectMcp(p.base, owner.token);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await p?.stop();
  });

  it('creates, lists, updates and archives an expert; REST sees the same expert', async () => {
    const created = await mcpCall(client, 'create_expert', {
      name: 'Support',
      workspaceId: ws,
      systemPrompt: 'Be kind.',
      enabledTools: ['search', 'get_fragment'],
      routingKeywords: ['Billing'],
    });
    expect(created.isError, created.text).toBe(false);
    const id = created.data.expert.id;
    const rest = await call(p.base, owner.token, 'GET', `/api/v2/experts/${id}`);
    expect(rest.body.expert).toMatchObject({
      name: 'Support',
      expertConfig: { enabledTools: ['search', 'get_fragment'], routing: { keywords: ['billing'] } },
    });
    const updated = await mcpCall(client, 'update_expert', { id, enabledTools: ['list_collections'] });
    expect(updated.data.expert.enabledTools).toEqual(['list_collections']);
    expect((await mcpCall(client, 'list_experts', { workspaceId: ws })).data.totalCount).toBe(1);
    expect((await mcpCall(client, 'archive_expert', { id })).data).toEqual({ archived: true, id });
    expect((await call(p.base, owner.token, 'GET', `/api/v2/experts/${id}`)).status).toBe(404);
  });

  it('refuses what REST refuses: unknown or MCP-only tools, a workspace of someone else', async () => {
    const unknownTool = await mcpCall(client, 'create_expert', { name: 'x', workspaceId: ws, enabledTools: ['rm_rf'] });
    expect(unknownTool.isError).toBe(true);
    expect(unknownTool.text).toContain('rm_rf');
    const managementTool = await mcpCall(client, 'create_expert', {
      name: 'x',
      workspaceId: ws,
      enabledTools: ['create_expert'],
    });
    expect(managementTool.isError).toBe(true);
    const theirWs = (await call(p.base, stranger.token, 'POST', '/api/workspaces', { name: 'theirs' })).body.workspace
      .id;
    const foreign = await mcpCall(client, 'create_expert', { name: 'x', workspaceId: theirWs });
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toContain('NOT_FOUND');
  });

  it('manages embed configurations; keys stay a REST matter', async () => {
    const created = await mcpCall(client, 'create_embed_config', {
      name: 'Site',
      workspaceId: ws,
      feedbackMode: 'host-event',
      stateless: true,
    });
    expect(created.isError, created.text).toBe(false);
    const id = created.data.config.id;
    expect(created.data.config).toMatchObject({
      name: 'Site',
      feedbackMode: 'host-event',
      stateless: true,
      status: 'active',
    });
    const updated = await mcpCall(client, 'update_embed_config', { id, feedbackMode: 'off', name: 'Site v2' });
    expect(updated.data.config).toMatchObject({ name: 'Site v2', feedbackMode: 'off', stateless: true });
    const rest = await call(p.base, owner.token, 'GET', `/api/v2/configs/${id}`);
    expect(rest.body.config.features.feedbackMode).toBe('off');
    expect((await mcpCall(client, 'archive_embed_config', { id })).isError).toBe(false);
    const archived = await mcpCall(client, 'list_embed_configs', { status: 'archived' });
    expect(archived.data.configs.map((c: { id: string }) => c.id)).toContain(id);
  });

  it("cannot see or change another user's, and needs applications:manage", async () => {
    const theirs = await connectMcp(p.base, stranger.token);
    try {
      expect((await mcpCall(theirs, 'list_experts', {})).data.experts).toEqual([]);
      const mine = (await mcpCall(client, 'create_expert', { name: 'mine', workspaceId: ws })).data.expert.id;
      const steal = await mcpCall(theirs, 'update_expert', { id: mine, name: 'stolen' });
      expect(steal.isError).toBe(true);
      expect(steal.text).toContain('NOT_FOUND');
    } finally {
      await theirs.close();
    }
    const { token } = await createToken(p.base, owner.token, { name: 'reader', scopes: ['fragments:read'] });
    const narrow = await connectMcp(p.base, token);
    try {
      const denied = await mcpCall(narrow, 'list_experts', {});
      expect(denied.isError).toBe(true);
      expect(denied.text).toContain('FORBIDDEN');
    } finally {
      await narrow.close();
    }
  });
});
