import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startChatPlatform } from './chat-fixture.js';

/**
 * Custom experts through REST: the tool registry they choose from (the MCP endpoint's), create
 * with a workspace the creator can read, refusals of unknown tools and models, paging and the
 * workspace filter, updates, archiving, and other users' experts answering 404 like unknown ids.
 */
describe('custom experts (/api/v2/experts)', () => {
  let p: Awaited<ReturnType<typeof startChatPlatform>>;
  let owner: { token: string; user: { id: string } };
  let stranger: { token: string };
  let ws: string;
  let otherWs: string;
  const api = (token: string, method: string, path: string, body?: unknown) => call(p.base, token, method, path, body);

  beforeAll(async () => {
    p = await startChatPlatform();
    owner = await p.person();
    stranger = await p.person();
    ws = (await api(owner.token, 'POST', '/api/workspaces', { name: 'experts' })).body.workspace.id;
    otherWs = (await api(stranger.token, 'POST', '/api/workspaces', { name: 'not yours' })).body.workspace.id;
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it('lists the assignable tools: the MCP endpoint’s, each with a JSON Schema', async () => {
    const res = await api(owner.token, 'GET', '/api/v2/experts/tools');
    expect(res.status).toBe(200);
    const ids = res.body.tools.map((t: { id: string }) => t.id);
    expect(ids).toEqual(expect.arrayContaining(['search', 'get_fragment', 'list_collections', 'create_fragment']));
    const search = res.body.tools.find((t: { id: string }) => t.id === 'search');
    expect(search).toMatchObject({ readOnly: true, inputSchema: { type: 'object' } });
    expect(search.inputSchema.properties.query).toBeDefined();
    expect(search.description.length).toBeGreaterThan(10);
  });

  let expertId: string;

  it('creates an expert and reads it back', async () => {
    const res = await api(owner.token, 'POST', '/api/v2/experts', {
      name: 'Research helper',
      workspaceId: ws,
      expertConfig: {
        systemPrompt: 'Answer from the workspace only.',
        enabledTools: ['search', 'get_fragment', 'search'],
        routing: { keywords: [' Research ', 'paper'] },
        modelPreference: 'gpt-4o',
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.expert).toMatchObject({
      name: 'Research helper',
      workspaceId: ws,
      expertConfig: {
        systemPrompt: 'Answer from the workspace only.',
        enabledTools: ['search', 'get_fragment'],
        routing: { keywords: ['research', 'paper'] },
        modelPreference: 'gpt-4o',
      },
      createdBy: owner.user.id,
    });
    expertId = res.body.expert.id;
    const read = await api(owner.token, 'GET', `/api/v2/experts/${expertId}`);
    expect(read.body).toEqual(res.body);
  });

  it.each([
    [{ expertConfig: { enabledTools: ['search', 'rm_rf'] } }, 'expertConfig.enabledTools', /rm_rf/],
    [{ expertConfig: { modelPreference: 'no-such-model' } }, 'expertConfig.modelPreference', /no-such-model/],
    [{ expertConfig: { modelPreference: 'gpt-image-1' } }, 'expertConfig.modelPreference', /not a chat model/],
    [{ name: '' }, 'name', /name/],
    [{ expertConfig: { unknown: 1 } }, 'expertConfig.unknown', /should not exist/],
  ])('refuses %j with 400 naming the field, storing nothing', async (change, field, message) => {
    const before = (await api(owner.token, 'GET', '/api/v2/experts')).body.totalCount;
    const res = await api(owner.token, 'POST', '/api/v2/experts', { name: 'x', workspaceId: ws, ...change });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.error).toMatch(message);
    expect(JSON.stringify(res.body.fields ?? [])).toContain(field);
    expect((await api(owner.token, 'GET', '/api/v2/experts')).body.totalCount).toBe(before);
  });

  it('needs a workspace the creator can read (404 otherwise, as for an unknown workspace)', async () => {
    const theirs = await api(owner.token, 'POST', '/api/v2/experts', { name: 'x', workspaceId: otherWs });
    const unknown = await api(owner.token, 'POST', '/api/v2/experts', {
      name: 'x',
      workspaceId: '00000000-0000-4000-8000-000000000000',
    });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
  });

  it('pages and filters by workspace', async () => {
    const second = await api(owner.token, 'POST', '/api/workspaces', { name: 'second' });
    const ws2 = second.body.workspace.id;
    for (const name of ['b', 'c']) await api(owner.token, 'POST', '/api/v2/experts', { name, workspaceId: ws2 });
    const all = await api(owner.token, 'GET', '/api/v2/experts?limit=2&offset=0');
    expect(all.body).toMatchObject({ totalCount: 3, limit: 2, offset: 0 });
    expect(all.body.experts.map((e: { name: string }) => e.name)).toEqual(['Research helper', 'b']);
    const next = await api(owner.token, 'GET', '/api/v2/experts?limit=2&offset=2');
    expect(next.body.experts.map((e: { name: string }) => e.name)).toEqual(['c']);
    const filtered = await api(owner.token, 'GET', `/api/v2/experts?workspaceId=${ws2}`);
    expect(filtered.body.totalCount).toBe(2);
    expect((await api(owner.token, 'GET', '/api/v2/experts?limit=0')).status).toBe(400);
    expect((await api(owner.token, 'GET', '/api/v2/experts?offset=1e308')).status).toBe(400);
  });

  it('updates the fields present; lists are replaced as a whole', async () => {
    const res = await api(owner.token, 'PATCH', `/api/v2/experts/${expertId}`, {
      expertConfig: { enabledTools: ['list_collections'], routing: { keywords: [] } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.expert.expertConfig).toMatchObject({
      systemPrompt: 'Answer from the workspace only.',
      enabledTools: ['list_collections'],
      routing: { keywords: [] },
      modelPreference: 'gpt-4o',
    });
    expect(res.body.expert.name).toBe('Research helper');
    const bad = await api(owner.token, 'PATCH', `/api/v2/experts/${expertId}`, {
      expertConfig: { enabledTools: ['nope'] },
    });
    expect(bad.status).toBe(400);
  });

  it("answers another user's expert exactly like an unknown one, for every route", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const theirs = await api(stranger.token, method, `/api/v2/experts/${expertId}`, body);
      const none = await api(stranger.token, method, `/api/v2/experts/${unknown}`, body);
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(none.text);
    }
    expect((await api(stranger.token, 'GET', '/api/v2/experts')).body.experts).toEqual([]);
    expect((await api(owner.token, 'GET', `/api/v2/experts/${expertId}`)).body.expert.name).toBe('Research helper');
  });

  it('archives: gone from the list, 404 after', async () => {
    expect((await api(owner.token, 'DELETE', `/api/v2/experts/${expertId}`)).status).toBe(204);
    expect((await api(owner.token, 'GET', `/api/v2/experts/${expertId}`)).status).toBe(404);
    expect((await api(owner.token, 'DELETE', `/api/v2/experts/${expertId}`)).status).toBe(404);
    const list = await api(owner.token, 'GET', '/api/v2/experts');
    expect(list.body.experts.map((e: { id: string }) => e.id)).not.toContain(expertId);
  });

  it('needs the applications:manage scope', async () => {
    const { token } = await p.person({ scopes: ['fragments:read'] });
    expect((await api(token, 'GET', '/api/v2/experts')).status).toBe(403);
    expect((await api(token, 'POST', '/api/v2/experts', { name: 'x', workspaceId: ws })).status).toBe(403);
  });
});
