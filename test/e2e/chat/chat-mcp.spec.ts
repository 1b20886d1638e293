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

  /**
   * The owner's expert, embed configuration and key over a second workspace B, an expert over A,
   * and a token of the owner's restricted to A.
   */
  async function overB() {
    const other = (await call(p.base, owner.token, 'POST', '/api/workspaces', { name: 'B' })).body.workspace.id;
    const made = (path: string, body: object) => call(p.base, owner.token, 'POST', path, body);
    const expert = (await made('/api/v2/experts', { name: 'B expert', workspaceId: other })).body.expert.id;
    const config = (await made('/api/v2/configs', { name: 'B config', workspaceId: other, systemPrompt: 'B rules' }))
      .body.config.id;
    const key = (await made(`/api/v2/configs/${config}/keys`, { label: 'site', allowedDomains: ['https://b.example'] }))
      .body.key.id;
    const mineOverA = (await made('/api/v2/experts', { name: 'A expert', workspaceId: ws })).body.expert.id;
    const { token } = await createToken(p.base, owner.token, { name: 'only A', scopes: ['*'], workspaceIds: [ws] });
    return { other, expert, config, key, mineOverA, token };
  }

  /** Nothing of B changed: the user's all-workspace token still sees it as it was, active. */
  async function unchanged(b: Awaited<ReturnType<typeof overB>>) {
    const expert = await call(p.base, owner.token, 'GET', `/api/v2/experts/${b.expert}`);
    expect(expert.body.expert).toMatchObject({ name: 'B expert', expertConfig: { systemPrompt: '' } });
    const config = await call(p.base, owner.token, 'GET', `/api/v2/configs/${b.config}`);
    expect(config.body.config).toMatchObject({ status: 'active', systemPrompt: 'B rules' });
    const keys = (await call(p.base, owner.token, 'GET', `/api/v2/configs/${b.config}/keys`)).body.keys;
    expect(keys).toMatchObject([{ id: b.key, label: 'site', revokedAt: null }]);
  }

  it('a token restricted to workspace A finds nothing of B over MCP: not listed, "not found" to change', async () => {
    const b = await overB();
    const onlyA = await connectMcp(p.base, b.token);
    try {
      const experts = (await mcpCall(onlyA, 'list_experts', {})).data.experts.map((e: { id: string }) => e.id);
      expect(experts).toContain(b.mineOverA);
      expect(experts).not.toContain(b.expert);
      expect((await mcpCall(onlyA, 'list_experts', { workspaceId: b.other })).data).toEqual({
        experts: [],
        totalCount: 0,
      });
      for (const status of ['active', 'archived']) {
        const configs = (await mcpCall(onlyA, 'list_embed_configs', { status })).data.configs;
        expect(configs.map((c: { id: string }) => c.id)).not.toContain(b.config);
      }
      for (const [tool, args] of [
        ['update_expert', { id: b.expert, systemPrompt: 'through A' }],
        ['update_embed_config', { id: b.config, systemPrompt: 'through A' }],
        ['archive_expert', { id: b.expert }],
        ['archive_embed_config', { id: b.config }],
      ] as const) {
        const answer = await mcpCall(onlyA, tool, args);
        expect(answer.isError, `${tool}: ${answer.text}`).toBe(true);
        expect(answer.text).toContain('NOT_FOUND');
      }
    } finally {
      await onlyA.close();
    }
    await unchanged(b);
  });

  it('a token restricted to workspace A finds nothing of B over REST: every id route answers the 404 of an unknown id', async () => {
    const b = await overB();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const rest = (method: string, path: string, body?: unknown) => call(p.base, b.token, method, path, body);
    const expertCases: [string, (id: string) => string, unknown?][] = [
      ['GET', (id) => `/api/v2/experts/${id}`],
      ['PATCH', (id) => `/api/v2/experts/${id}`, { expertConfig: { systemPrompt: 'through A' } }],
      ['DELETE', (id) => `/api/v2/experts/${id}`],
    ];
    const configCases: [string, (id: string) => string, unknown?][] = [
      ['GET', (id) => `/api/v2/configs/${id}`],
      ['PATCH', (id) => `/api/v2/configs/${id}`, { systemPrompt: 'through A' }],
      ['GET', (id) => `/api/v2/configs/${id}/keys`],
      ['POST', (id) => `/api/v2/configs/${id}/keys`, { label: 'x', allowedDomains: ['https://a.example'] }],
      ['PATCH', (id) => `/api/v2/configs/${id}/keys/${b.key}`, { label: 'through A' }],
      ['DELETE', (id) => `/api/v2/configs/${id}/keys/${b.key}`],
      ['DELETE', (id) => `/api/v2/configs/${id}`],
    ];
    for (const [cases, id] of [
      [expertCases, b.expert],
      [configCases, b.config],
    ] as const) {
      for (const [method, path, body] of cases) {
        const hidden = await rest(method, path(id), body);
        const missing = await rest(method, path(unknown), body);
        expect(hidden.status, `${method} ${path(id)}`).toBe(404);
        expect(hidden.body, `${method} ${path(id)}`).toMatchObject({ code: 'NOT_FOUND', error: missing.body.error });
      }
    }
    const listed = (await rest('GET', '/api/v2/experts')).body.experts.map((e: { id: string }) => e.id);
    expect(listed).toContain(b.mineOverA);
    expect(listed).not.toContain(b.expert);
    expect((await rest('GET', `/api/v2/experts?workspaceId=${b.other}`)).body.totalCount).toBe(0);
    for (const query of ['', '?status=archived', `?workspaceId=${b.other}`]) {
      const configs = (await rest('GET', `/api/v2/configs${query}`)).body;
      expect(configs.configs.map((c: { id: string }) => c.id)).not.toContain(b.config);
    }
    // Nor can a configuration over A take B's expert as its main agent.
    const borrow = await rest('POST', '/api/v2/configs', { name: 'A', workspaceId: ws, mainExpertId: b.expert });
    expect(borrow.status).toBe(400);
    await unchanged(b);
  });
});
