import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect as netConnect } from 'node:net';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { SEARCH_QUERY_MAX } from '@kw/contracts';
import { createToken } from '../../support/accounts.js';
import { launchChromium } from '../../support/browser.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { call, connectMcp } from './mcp-fixture.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A page server on a port of its own: a browser origin other than the platform's. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>MCP client page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** Raw HTTP/1.1 bytes over a socket, and what came back before the server closed (or 2 s). */
function rawExchange(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = netConnect(Number(port), hostname, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
    setTimeout(() => socket.destroy(), 2_000);
  });
}

describe('MCP endpoint (official SDK client over HTTP)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let viewer: Person;
  let ws: { id: string; noteTypeId: string };
  let other: { id: string; noteTypeId: string };
  let client: Client;
  let fragmentId: string;
  // Browser pages: one origin listed in MCP_ALLOWED_ORIGINS, one not.
  let allowedPage: Awaited<ReturnType<typeof pageServer>>;
  let foreignPage: Awaited<ReturnType<typeof pageServer>>;

  beforeAll(async () => {
    allowedPage = await pageServer();
    foreignPage = await pageServer();
    p = await startFragmentsPlatform({ MCP_ALLOWED_ORIGINS: allowedPage.origin });
    owner = await p.person();
    viewer = await p.person();
    ws = await p.workspace(owner, { name: 'MCP workspace' });
    other = await p.workspace(owner, { name: 'Other workspace' });
    await p.api.addMember(owner.auth, ws.id, viewer, 'viewer');
    const { fragment } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title: 'Restarting the billing queue',
        content:
          'When the billing queue stalls, Ada Lovelace restarts the PostgreSQL consumer and checks the dead letters.',
        tags: ['ops', 'billing'],
      },
      201,
    );
    fragmentId = fragment.id;
    // Enriched (embedding and graph) before the search and graph tools look for it.
    for (let i = 0; i < 300; i++) {
      const { body } = await p.api.call(owner.auth, 'GET', `/api/memory-fragments/${fragmentId}`);
      if (body.fragment.status === 'published') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    client = await connectMcp(p.platform.url, owner.auth);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await p?.stop();
    allowedPage?.server.close();
    foreignPage?.server.close();
  });

  it('lists every documented tool with a valid JSON Schema for its arguments', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        'add_to_collection',
        'agentic_search',
        'archive_embed_config',
        'archive_expert',
        'archive_fragment',
        'create_embed_config',
        'create_expert',
        'create_fragment',
        'get_fragment',
        'list_collections',
        'list_embed_configs',
        'list_experts',
        'list_fragment_types',
        'list_fragments',
        'list_workspace_files',
        'list_workspaces',
        'read_workspace_file',
        'related',
        'search',
        'search_workspace_files',
        'update_embed_config',
        'update_expert',
        'update_fragment',
        'whoami',
      ].sort(),
    );
    const ajv = new Ajv({ strict: false });
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it('answers whoami and list_workspaces for the caller', async () => {
    const me = await call(client, 'whoami');
    expect(me.isError).toBe(false);
    expect(me.data.user).toMatchObject({ id: owner.id, email: owner.email });
    expect(me.data.credential.kind).toBe('pat');
    const { data } = await call(client, 'list_workspaces');
    expect(data.workspaces.map((w: any) => w.id)).toEqual(expect.arrayContaining([ws.id, other.id]));
    expect(data.workspaces.find((w: any) => w.id === ws.id).relation).toBe('owner');
  });

  it('creates, reads, updates, lists and archives fragments like the REST routes', async () => {
    const types = await call(client, 'list_fragment_types', { workspaceId: ws.id });
    const note = types.data.fragmentTypes.find((t: any) => t.key === 'note');
    const created = await call(client, 'create_fragment', {
      workspaceId: ws.id,
      fragmentTypeId: note.id,
      title: 'Written by an agent',
      content: 'Agents keep notes too.',
      tags: ['agent'],
    });
    expect(created.isError, created.text).toBe(false);
    expect(created.data.fragment).toMatchObject({
      title: 'Written by an agent',
      createdVia: 'mcp',
      status: 'processing',
      version: 1,
    });
    const id = created.data.fragment.id;
    // The REST API sees the same fragment.
    const rest = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${id}`, undefined, 200);
    expect(rest.fragment.createdVia).toBe('mcp');

    const got = await call(client, 'get_fragment', { fragmentId: id });
    expect(got.data.fragment.content).toBe('Agents keep notes too.');
    const updated = await call(client, 'update_fragment', {
      fragmentId: id,
      append: 'And they append.',
      expectedVersion: 1,
    });
    expect(updated.isError, updated.text).toBe(false);
    expect(updated.data.fragment.version).toBe(2);
    const stale = await call(client, 'update_fragment', { fragmentId: id, title: 'Stale write', expectedVersion: 1 });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/VERSION_CONFLICT/);
    expect(stale.data).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2 });

    // A taken key names its holder, as the REST answer does (existingId).
    const keyed = await call(client, 'create_fragment', {
      workspaceId: ws.id,
      fragmentTypeId: note.id,
      title: 'Keyed',
      content: 'First holder of the key.',
      key: 'mcp-key',
    });
    const taken = await call(client, 'create_fragment', {
      workspaceId: ws.id,
      fragmentTypeId: note.id,
      title: 'Keyed again',
      content: 'x',
      key: 'mcp-key',
    });
    expect(taken.isError).toBe(true);
    expect(taken.text).toMatch(/^KEY_EXISTS: /);
    expect(taken.text).toContain(keyed.data.fragment.id);
    const overRest = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
      workspaceId: ws.id,
      fragmentTypeId: note.id,
      title: 'Keyed over REST',
      content: 'x',
      key: 'mcp-key',
    });
    expect(overRest.status).toBe(409);
    expect(taken.data).toEqual(overRest.body);
    expect(taken.data).toMatchObject({ code: 'KEY_EXISTS', existingId: keyed.data.fragment.id });

    const listed = await call(client, 'list_fragments', { workspaceId: ws.id, limit: 1 });
    expect(listed.data).toMatchObject({ count: 1, limit: 1 });
    expect(listed.data.totalCount).toBeGreaterThanOrEqual(2);
    expect(listed.data.fragments[0].content).toBeUndefined();

    const archived = await call(client, 'archive_fragment', { fragmentId: id });
    expect(archived.data.fragment.archivedAt).not.toBeNull();
  });

  it('refuses a blank title as the REST routes do (create and update)', async () => {
    const blank = await call(client, 'create_fragment', {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: '   ',
      content: 'A title of spaces only.',
    });
    expect(blank.isError, blank.text).toBe(true);
    expect(blank.text).toMatch(/^VALIDATION_FAILED: title: title must not be blank/);
    expect(blank.data).toMatchObject({ code: 'VALIDATION_FAILED', error: 'title: title must not be blank' });
    const overRest = await p.api.call(owner.auth, 'POST', '/api/memory-fragments', {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: '   ',
      content: 'x',
    });
    expect(overRest.status).toBe(400);
    expect(overRest.body.error).toBe(blank.data.error);
    const blankUpdate = await call(client, 'update_fragment', { fragmentId, title: ' \t ' });
    expect(blankUpdate.isError, blankUpdate.text).toBe(true);
    expect(blankUpdate.data).toMatchObject({ code: 'VALIDATION_FAILED', error: 'title: title must not be blank' });
    const kept = await p.api.ok(owner.auth, 'GET', `/api/memory-fragments/${fragmentId}`, undefined, 200);
    expect(kept.fragment.title).toBe('Restarting the billing queue');
  });

  it('cuts list previews between characters, never inside a surrogate pair', async () => {
    const { fragment } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: other.id, fragmentTypeId: other.noteTypeId, title: 'Emoji', content: `a${'🙂'.repeat(300)}` },
      201,
    );
    const listed = await call(client, 'list_fragments', { workspaceId: other.id, limit: 100 });
    const preview: string = listed.data.fragments.find((f: any) => f.id === fragment.id).preview;
    expect(preview.endsWith('…')).toBe(true);
    expect(preview).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(preview).toBe(`a${'🙂'.repeat(139)}…`);
  });

  it('keeps every one of concurrent appends sent without expectedVersion', async () => {
    const created = await call(client, 'create_fragment', {
      workspaceId: ws.id,
      fragmentTypeId: ws.noteTypeId,
      title: 'Appended by many agents',
      content: 'start',
    });
    const id = created.data.fragment.id;
    const lines = Array.from({ length: 6 }, (_, n) => `agent line ${n}`);
    const results = await Promise.all(
      lines.map((append) => call(client, 'update_fragment', { fragmentId: id, append })),
    );
    for (const result of results) expect(result.isError, result.text).toBe(false);
    const got = await call(client, 'get_fragment', { fragmentId: id });
    expect(got.data.fragment.content.split('\n').slice(1).sort()).toEqual(lines);
    expect(got.data.fragment.version).toBe(1 + lines.length);
  });

  it('searches one workspace or all readable ones, runs agentic search and follows graph links', async () => {
    const one = await call(client, 'search', { workspaceId: ws.id, query: 'billing queue' });
    expect(one.isError, one.text).toBe(false);
    expect(one.data.hits[0].fragmentId).toBe(fragmentId);
    // Every fragment a result names comes with its resource URI (docs/mcp.md).
    expect(one.data.hits[0].resourceUri).toBe(`kw://fragments/${fragmentId}`);
    const all = await call(client, 'search', { query: 'billing queue', mode: 'keyword' });
    expect(all.data.hits.map((h: any) => h.fragmentId)).toContain(fragmentId);
    const agentic = await call(client, 'agentic_search', { workspaceId: ws.id, query: 'who restarts billing' });
    expect(agentic.isError, agentic.text).toBe(false);
    expect(agentic.data.leads.map((l: any) => l.fragmentId)).toContain(fragmentId);
    for (const lead of agentic.data.leads) expect(lead.resourceUri).toBe(`kw://fragments/${lead.fragmentId}`);
    expect(agentic.data.steps.length).toBeGreaterThan(0);
    const related = await call(client, 'related', { workspaceId: ws.id, query: 'Ada Lovelace' });
    expect(related.isError, related.text).toBe(false);
    expect(related.data.entities.map((e: any) => e.name)).toContain('Ada Lovelace');
    // Each entity once, although the query's seeds are among the graph's nodes too.
    const entityIds = related.data.entities.map((e: any) => e.id);
    expect(entityIds).toEqual([...new Set(entityIds)]);
    expect(related.data.fragments.map((f: any) => f.fragmentId)).toContain(fragmentId);
    for (const f of related.data.fragments) expect(f.resourceUri).toBe(`kw://fragments/${f.fragmentId}`);
    const byFragment = await call(client, 'related', { workspaceId: ws.id, fragmentId });
    expect(byFragment.isError, byFragment.text).toBe(false);
  });

  it('takes queries as long as the REST routes do, and refuses longer ones', async () => {
    // A pasted passage (longer than the 1,000 characters the tool once took) finds its note.
    const passage = `Who restarts the billing queue when it stalls? ${'The night shift saw the consumer lag again. '.repeat(40)}`;
    expect(passage.length).toBeGreaterThan(1_000);
    const agentic = await call(client, 'agentic_search', { workspaceId: ws.id, query: passage.slice(0, 2_000) });
    expect(agentic.isError, agentic.text).toBe(false);
    expect(agentic.data.leads.map((l: any) => l.fragmentId)).toContain(fragmentId);
    const tooLong = await call(client, 'agentic_search', {
      workspaceId: ws.id,
      query: 'x'.repeat(SEARCH_QUERY_MAX + 1),
    });
    expect(tooLong.isError).toBe(true);
    const graphTooLong = await call(client, 'related', { workspaceId: ws.id, query: 'x'.repeat(501) });
    expect(graphTooLong.isError).toBe(true);

    // For a fragment, the graph is asked with its title and tags cut at the graph query's bound:
    // a long title with many tags is not refused.
    const { fragment } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title: `Ada Lovelace on call ${'and the handover notes '.repeat(20)}`.slice(0, 500),
        content: 'Long title, many tags.',
        tags: Array.from({ length: 20 }, (_, i) => `handover-${i}`),
      },
      201,
    );
    const related = await call(client, 'related', { workspaceId: ws.id, fragmentId: fragment.id });
    expect(related.isError, related.text).toBe(false);
    expect(related.data.entities.map((e: any) => e.name)).toContain('Ada Lovelace');
  });

  it('manages collections', async () => {
    const { collection } = await p.api.ok(
      owner.auth,
      'POST',
      `/api/workspaces/${ws.id}/collections`,
      { name: 'Runbooks' },
      201,
    );
    const added = await call(client, 'add_to_collection', {
      workspaceId: ws.id,
      collectionId: collection.id,
      fragmentIds: [fragmentId],
    });
    expect(added.data.added).toBe(1);
    const listed = await call(client, 'list_collections', { workspaceId: ws.id });
    expect(listed.data.collections.find((c: any) => c.id === collection.id).fragmentCount).toBe(1);
  });

  it('reads a fragment as a resource through the template', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('kw://fragments/{fragmentId}');
    const { contents } = await client.readResource({ uri: `kw://fragments/${fragmentId}` });
    expect(contents[0]).toMatchObject({ uri: `kw://fragments/${fragmentId}`, mimeType: 'text/markdown' });
    expect((contents[0] as { text: string }).text).toMatch(/^# Restarting the billing queue/);
    // Unknown, malformed and hidden (a workspace the viewer is not in) answer alike: MCP's "Resource not found".
    const { fragment: hidden } = await p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      { workspaceId: other.id, fragmentTypeId: other.noteTypeId, title: 'Not for viewers', content: 'x' },
      201,
    );
    const asViewer = await connectMcp(p.platform.url, viewer.auth);
    try {
      for (const [reader, id] of [
        [client, UNKNOWN],
        [client, 'not-a-uuid'],
        [client, ''],
        [client, `${fragmentId}/x`],
        [asViewer, hidden.id],
      ] as const) {
        const uri = `kw://fragments/${id}`;
        const refused = await reader.readResource({ uri }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(refused, uri).toBeInstanceOf(McpError);
        expect(refused).toMatchObject({ code: -32002, data: { uri } });
      }
    } finally {
      await asViewer.close();
    }
    // A token that sees the fragment but lacks fragments:read: a permission error naming the
    // scope, not -32603 "Internal error" (a refusal is no server fault).
    const { token: profileOnly } = await createToken(p.platform.url, owner.auth, { scopes: ['profile:read'] });
    const narrow = await connectMcp(p.platform.url, profileOnly);
    try {
      const uri = `kw://fragments/${fragmentId}`;
      const refused = await narrow.readResource({ uri }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: -32003, data: { uri, code: 'FORBIDDEN' } });
      expect((refused as McpError).message).toMatch(/fragments:read/);
    } finally {
      await narrow.close();
    }
  });

  it('turns bad arguments and failures into isError results an AI can act on', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['get_fragment', { fragmentId: 'not-a-uuid' }, /fragmentId|uuid|Invalid/i],
      ['get_fragment', { fragmentId: UNKNOWN }, /NOT_FOUND/],
      ['list_fragments', { workspaceId: UNKNOWN }, /NOT_FOUND/],
      ['list_fragments', { workspaceId: ws.id, limit: 10_000 }, /limit|too big|100/i],
      [
        'create_fragment',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: '', content: 'x' },
        /title|too small|Invalid/i,
      ],
      [
        'create_fragment',
        { workspaceId: ws.id, fragmentTypeId: other.noteTypeId, title: 'Wrong type', content: 'x' },
        /INVALID_FRAGMENT_TYPE/,
      ],
      ['update_fragment', { fragmentId, content: 'x', append: 'y' }, /content cannot be combined/],
      ['search', { query: '' }, /query|too small|Invalid/i],
      ['related', { workspaceId: ws.id }, /exactly one of fragmentId or query/],
      ['add_to_collection', { workspaceId: ws.id, collectionId: UNKNOWN, fragmentIds: [fragmentId] }, /NOT_FOUND/],
      ['agentic_search', { workspaceId: ws.id }, /query|Invalid|Required/i],
      ['list_collections', { workspaceId: 'nope' }, /workspaceId|uuid|Invalid/i],
      ['list_fragment_types', {}, /workspaceId|Invalid|Required/i],
    ];
    for (const [name, args, message] of cases) {
      const result = await call(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}: ${result.text}`).toBe(true);
      expect(result.text, name).toMatch(message);
    }
    // The SDK answers an unknown tool as a result too; an unknown method is a JSON-RPC error.
    expect((await call(client, 'drop_database')).isError).toBe(true);
    // A name of the object prototype is no tool either.
    for (const name of ['toString', 'hasOwnProperty', 'constructor']) {
      const result = await call(client, name);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toMatch(/not found/);
    }
    await expect(
      client.request(
        { method: 'fragments/drop', params: {} } as never,
        (await import('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema,
      ),
    ).rejects.toThrow(/Method not found/);
  });

  describe('authorization (the REST rules, through the tools)', () => {
    it('a viewer reads but cannot create', async () => {
      const asViewer = await connectMcp(p.platform.url, viewer.auth);
      try {
        expect((await call(asViewer, 'get_fragment', { fragmentId })).isError).toBe(false);
        const denied = await call(asViewer, 'create_fragment', {
          workspaceId: ws.id,
          fragmentTypeId: ws.noteTypeId,
          title: 'Nope',
          content: 'Not allowed',
        });
        expect(denied.isError).toBe(true);
        expect(denied.text).toMatch(/^FORBIDDEN/);
      } finally {
        await asViewer.close();
      }
    });

    it('a token restricted to another workspace sees "not found", never "forbidden"', async () => {
      const { token } = await createToken(p.platform.url, owner.auth, {
        name: 'other only',
        scopes: ['*'],
        workspaceIds: [other.id],
      });
      const restricted = await connectMcp(p.platform.url, token);
      try {
        for (const [name, args] of [
          ['get_fragment', { fragmentId }],
          ['list_fragments', { workspaceId: ws.id }],
          ['search', { workspaceId: ws.id, query: 'billing' }],
        ] as const) {
          const result = await call(restricted, name, args);
          expect(result.isError, name).toBe(true);
          expect(result.text, name).toMatch(/^NOT_FOUND/);
        }
        const global = await call(restricted, 'search', { query: 'billing queue' });
        expect(global.data.hits.map((h: any) => h.fragmentId)).not.toContain(fragmentId);
      } finally {
        await restricted.close();
      }
    });

    it('without a token: 401 with the protected resource metadata; a foreign Origin: 403', async () => {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      const res = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      // The scope names the least an everyday client needs (read, and store fragments): MCP
      // clients ask for it rather than for every scope the metadata lists (SEP-835).
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer realm="kw", resource_metadata="${p.platform.url}/.well-known/oauth-protected-resource", ` +
          'scope="workspaces:read profile:read search:read fragments:read fragments:write collections:read files:read"',
      );
      const bad = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${owner.auth}`,
          origin: 'https://evil.example',
        },
        body: JSON.stringify(init),
      });
      expect(bad.status).toBe(403);
      const own = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${owner.auth}`,
          origin: new URL(p.platform.url).origin,
        },
        body: JSON.stringify(init),
      });
      expect(own.status).toBe(200);
      expect(own.headers.get('mcp-session-id')).toBeTruthy();
    });
  });

  describe('protocol errors (raw HTTP)', () => {
    const post = async (body: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${owner.auth}`,
          ...extra,
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const json = JSON.parse(
        text.startsWith('event:') || text.startsWith('data:') ? text.match(/^data: (.*)$/m)![1] : text,
      );
      return { status: res.status, json };
    };

    it('answers the JSON-RPC 2.0 codes: -32602 naming the field, -32600 for what is no message', async () => {
      const opened = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${owner.auth}`,
        },
        body: JSON.stringify(INIT),
      });
      const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
      await opened.text();
      for (const [params, field] of [
        [{ name: 'whoami', arguments: [] }, 'params.arguments'],
        [undefined, 'params'],
        [{ name: 42 }, 'params.name'],
      ] as const) {
        const { status, json } = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }, session);
        expect([status, json.id, json.error.code], field).toEqual([200, 7, -32602]);
        expect(json.error.message, field).toMatch(new RegExp(`^Invalid params: ${field.replace('.', '\\.')}: `));
        expect(json.error.message, field).not.toContain('\n');
        expect(json.error.data).toEqual({ field });
      }
      for (const notMessage of [
        { foo: 1 },
        { jsonrpc: '1.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: null, method: 'tools/list' },
        { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' },
      ]) {
        const { status, json } = await post(notMessage, session);
        expect([status, json.error.code], JSON.stringify(notMessage)).toEqual([400, -32600]);
      }
      // An initialize without params is told what it lacks, not to "send initialize first".
      const { status, json } = await post({ jsonrpc: '2.0', id: 1, method: 'initialize' });
      expect([status, json.error.code]).toEqual([200, -32602]);
      expect(json.error.message).toMatch(
        /^Invalid params: params: is required \(initialize needs params\.protocolVersion/,
      );
      await fetch(`${p.platform.url}/api/mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner.auth}`, ...session },
      });
    });

    it('answers an HTTP/1.1 request without Host (and two Authorization headers) in the error model', async () => {
      // node:http with a header list sends no Host of its own: Node's server once answered an
      // empty 400 that no hook saw.
      const body = JSON.stringify(INIT);
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            `${p.platform.url}/api/mcp`,
            {
              method: 'POST',
              headers: [
                'accept',
                'application/json, text/event-stream',
                'content-type',
                'application/json',
                'authorization',
                `Bearer ${owner.auth}`,
                'authorization',
                'Bearer kwp_other',
              ] as never,
            },
            (res) => {
              let text = '';
              res.on('data', (d) => (text += d));
              res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
            },
          );
          req.on('error', reject);
          req.end(body);
        },
      );
      expect(answer.status).toBe(400);
      expect(answer.headers['x-request-id']).toBeTruthy();
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.text)).toEqual({
        error: 'An HTTP/1.1 request must send a Host header',
        code: 'BAD_REQUEST',
      });
      // With a Host, two Authorization headers are the documented ambiguity refusal.
      const raw = await rawExchange(
        p.platform.url,
        `POST /api/mcp HTTP/1.1\r\nhost: ${new URL(p.platform.url).host}\r\ncontent-type: application/json\r\n` +
          `authorization: Bearer ${owner.auth}\r\nauthorization: Bearer kwp_other\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw).toMatch(/\r\nx-request-id: /i);
      expect(raw).toContain('"code":"BAD_REQUEST"');
      expect(raw).toContain('sent more than once');
      // HTTP/1.0 needs no Host.
      const old = await rawExchange(p.platform.url, 'GET /api/health HTTP/1.0\r\n\r\n');
      expect(old).toMatch(/^HTTP\/1\.1 200 /);
    });
  });

  describe('CORS for MCP_ALLOWED_ORIGINS', () => {
    it('answers the preflight of an allowed origin, and gives a foreign one no CORS headers', async () => {
      const preflight = (origin: string) =>
        fetch(`${p.platform.url}/api/mcp`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type,mcp-session-id,mcp-protocol-version',
          },
        });
      for (const origin of [allowedPage.origin, new URL(p.platform.url).origin]) {
        const ok = await preflight(origin);
        expect(ok.status, origin).toBe(204);
        expect(ok.headers.get('access-control-allow-origin')).toBe(origin);
        expect(ok.headers.get('vary')).toMatch(/Origin/);
        expect(ok.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
        expect(ok.headers.get('access-control-allow-headers')).toBe(
          'authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id',
        );
        expect(Number(ok.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      }
      const foreign = await preflight(foreignPage.origin);
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      const foreignPost = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: {
          origin: foreignPage.origin,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${owner.auth}`,
        },
        body: JSON.stringify(INIT),
      });
      expect(foreignPost.status).toBe(403);
      expect(foreignPost.headers.get('access-control-allow-origin')).toBeNull();
      expect(foreignPost.headers.get('access-control-expose-headers')).toBeNull();
    });

    it('lets a page of an allowed origin open a session in Chromium, and blocks a page of another origin', async () => {
      const browser = await launchChromium();
      try {
        const open = async (pageOrigin: string, token?: string) => {
          const page = await browser.newPage();
          await page.goto(pageOrigin);
          return page.evaluate(
            async ({ url, token, init }) => {
              try {
                const res = await fetch(url, {
                  method: 'POST',
                  headers: {
                    'content-type': 'application/json',
                    accept: 'application/json, text/event-stream',
                    'mcp-protocol-version': '2025-06-18',
                    ...(token ? { authorization: `Bearer ${token}` } : {}),
                  },
                  body: JSON.stringify(init),
                });
                await res.text();
                return {
                  status: res.status,
                  session: res.headers.get('mcp-session-id'),
                  challenge: res.headers.get('www-authenticate'),
                };
              } catch (err) {
                return { blocked: String(err) };
              }
            },
            { url: `${p.platform.url}/api/mcp`, token, init: INIT },
          );
        };
        const allowed: any = await open(allowedPage.origin, owner.auth);
        expect(allowed.status).toBe(200);
        expect(allowed.session).toMatch(/^[0-9a-f-]{36}$/);
        // Without a token, the page reads the 401's challenge (OAuth discovery starts there).
        const anonymous: any = await open(allowedPage.origin);
        expect(anonymous.status).toBe(401);
        expect(anonymous.challenge).toContain('resource_metadata=');
        const foreign: any = await open(foreignPage.origin, owner.auth);
        expect(foreign.blocked).toMatch(/Failed to fetch/);
      } finally {
        await browser.close();
      }
    }, 60_000);

    // Refused by the HTTP edge before the endpoint runs: over BODY_LIMIT_BYTES (5 MiB), another type, not JSON.
    const EDGE_REFUSALS = [
      { name: 'too large', type: 'application/json', body: `"${'a'.repeat(6 * 1024 * 1024)}"`, status: 413 },
      { name: 'wrong type', type: 'text/plain', body: JSON.stringify(INIT), status: 415 },
      { name: 'not JSON', type: 'application/json', body: '{"jsonrpc": ', status: 400 },
    ] as const;
    const EDGE_CODES = { 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 400: 'INVALID_JSON' } as const;

    it("lets a page of an allowed origin read the edge's refusals (413, 415, 400 INVALID_JSON) in Chromium", async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(allowedPage.origin);
        for (const refusal of EDGE_REFUSALS) {
          const got: any = await page.evaluate(
            async ({ url, token, type, body }) => {
              try {
                const res = await fetch(url, {
                  method: 'POST',
                  headers: {
                    'content-type': type,
                    accept: 'application/json, text/event-stream',
                    authorization: `Bearer ${token}`,
                  },
                  body,
                });
                return { status: res.status, json: await res.json() };
              } catch (err) {
                return { blocked: String(err) };
              }
            },
            { url: `${p.platform.url}/api/mcp`, token: owner.auth, type: refusal.type, body: refusal.body },
          );
          expect(got, refusal.name).toMatchObject({
            status: refusal.status,
            json: { code: EDGE_CODES[refusal.status] },
          });
        }
      } finally {
        await browser.close();
      }
    }, 60_000);

    it("gives the edge's refusals CORS headers for an admitted origin only, never for a foreign one", async () => {
      // Raw bytes: the 413 answers on Content-Length alone and closes the connection, which a
      // client still writing the body may report as a failed write before it reads the answer.
      const send = async (origin: string, refusal: (typeof EDGE_REFUSALS)[number]) => {
        const tooLarge = refusal.status === 413;
        const host = new URL(p.platform.url).host;
        const answer = await rawExchange(
          p.platform.url,
          `POST /api/mcp HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Type: ${refusal.type}\r\n` +
            `Authorization: Bearer ${owner.auth}\r\nContent-Length: ${Buffer.byteLength(refusal.body)}\r\n` +
            `Connection: close\r\n\r\n${tooLarge ? '' : refusal.body}`,
        );
        const [head, body] = answer.split('\r\n\r\n', 2);
        const [statusLine, ...lines] = head!.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        return { status: Number(statusLine!.split(' ')[1]), headers, json: JSON.parse(body!) };
      };
      for (const refusal of EDGE_REFUSALS) {
        for (const origin of [allowedPage.origin, new URL(p.platform.url).origin]) {
          const res = await send(origin, refusal);
          expect(res.status, `${refusal.name} from ${origin}`).toBe(refusal.status);
          expect(res.json.code).toBe(EDGE_CODES[refusal.status]);
          expect(res.headers['access-control-allow-origin'], refusal.name).toBe(origin);
          expect(res.headers['vary'], refusal.name).toMatch(/Origin/);
          expect(res.headers['access-control-expose-headers'], refusal.name).toBe('Mcp-Session-Id, WWW-Authenticate');
        }
        const foreign = await send(foreignPage.origin, refusal);
        expect(foreign.status, `${refusal.name} from a foreign origin`).toBe(refusal.status);
        expect(foreign.json.code).toBe(EDGE_CODES[refusal.status]);
        expect(foreign.headers['access-control-allow-origin'], refusal.name).toBeUndefined();
        expect(foreign.headers['access-control-expose-headers'], refusal.name).toBeUndefined();
      }
      // Another route's refusal gets none, even from an origin /api/mcp admits.
      const elsewhere = await fetch(`${p.platform.url}/api/memory-fragments`, {
        method: 'POST',
        headers: { origin: allowedPage.origin, 'content-type': 'text/plain', authorization: `Bearer ${owner.auth}` },
        body: '{}',
      });
      expect(elsewhere.status).toBe(415);
      expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('sessions and discovery', () => {
    const headers = (token: string, session?: string) => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(session && { 'mcp-session-id': session }),
    });
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

    it("answers a missing session 400, an unknown one 404, another credential's 404, and ends a session on DELETE", async () => {
      expect(
        (
          await fetch(`${p.platform.url}/api/mcp`, {
            method: 'POST',
            headers: headers(owner.auth),
            body: JSON.stringify(list),
          })
        ).status,
      ).toBe(400);
      const unknown = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'POST',
        headers: headers(owner.auth, 'no-such-session'),
        body: JSON.stringify(list),
      });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).error.code).toBe(-32001);

      const transport = (client as any).transport;
      const sessionId: string = transport.sessionId;
      expect(sessionId).toBeTruthy();
      // The session belongs to the credential that opened it.
      expect(
        (
          await fetch(`${p.platform.url}/api/mcp`, {
            method: 'POST',
            headers: headers(viewer.auth, sessionId),
            body: JSON.stringify(list),
          })
        ).status,
      ).toBe(404);

      const second = await connectMcp(p.platform.url, owner.auth);
      const secondId: string = (second as any).transport.sessionId;
      const ended = await fetch(`${p.platform.url}/api/mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner.auth}`, 'mcp-session-id': secondId },
      });
      expect(ended.status).toBe(200);
      expect(
        (
          await fetch(`${p.platform.url}/api/mcp`, {
            method: 'POST',
            headers: headers(owner.auth, secondId),
            body: JSON.stringify(list),
          })
        ).status,
      ).toBe(404);
    });

    it('describes the server at GET /api/mcp and publishes the well-known documents', async () => {
      const described: any = await (
        await fetch(`${p.platform.url}/api/mcp`, { headers: { accept: 'application/json' } })
      ).json();
      expect(described).toMatchObject({
        name: 'knowledge-workspace',
        transport: { type: 'streamable-http' },
        authentication: { type: 'bearer' },
      });
      // Every bearer credential the endpoint takes, OAuth and agent tokens among them.
      expect(described.authentication.credentials.join(' ')).toContain('kwa_');
      expect(described.protocolVersions).toContain('2025-06-18');
      expect(described.tools).toContain('search');
      const sse = await fetch(`${p.platform.url}/api/mcp`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${owner.auth}` },
      });
      expect(sse.status).toBe(400);

      // At the root address and at the one with the resource's path inserted (RFC 9728 §3.1).
      for (const path of ['', '/api/mcp']) {
        const res = await fetch(`${p.platform.url}/.well-known/oauth-protected-resource${path}`);
        expect(res.status, path).toBe(200);
        const prm: any = await res.json();
        expect(prm).toMatchObject({
          resource: `${p.platform.url}/api/mcp`,
          authorization_servers: [p.platform.url],
        });
        // The scopes the tools use, not every delegable one (no members, webhooks, vault...).
        expect([...prm.scopes_supported].sort(), path).toEqual(
          [
            'workspaces:read',
            'profile:read',
            'search:read',
            'fragments:read',
            'fragments:write',
            'fragments:delete',
            'collections:read',
            'collections:write',
            'files:read',
          ].sort(),
        );
      }
      for (const doc of ['oauth-authorization-server', 'openid-configuration']) {
        const meta: any = await (await fetch(`${p.platform.url}/.well-known/${doc}`)).json();
        expect(meta.issuer, doc).toBe(p.platform.url);
        expect(meta.token_endpoint, doc).toBe(`${p.platform.url}/oauth2/token`);
      }
    });
  });

  it('keeps ten concurrent sessions of different users correct and apart', async () => {
    // Set up one after another: the sessions are what run at once, not ten password hashes, which
    // on a loaded 2-core machine outlived the request deadline (504).
    const people: Awaited<ReturnType<typeof p.person>>[] = [];
    const spaces: Awaited<ReturnType<typeof p.workspace>>[] = [];
    for (let i = 0; i < 10; i++) {
      const person = await p.person();
      people.push(person);
      spaces.push(await p.workspace(person, { name: `Concurrent ${i}` }));
    }
    const clients = await Promise.all(
      people.map((person, i) => connectMcp(p.platform.url, person.auth, `client-${i}`)),
    );
    try {
      await Promise.all(
        clients.map(async (c, i) => {
          for (let round = 0; round < 3; round++) {
            const created = await call(c, 'create_fragment', {
              workspaceId: spaces[i]!.id,
              fragmentTypeId: spaces[i]!.noteTypeId,
              title: `Session ${i} note ${round}`,
              content: `marker-${i}-${round}`,
            });
            expect(created.isError, created.text).toBe(false);
            const me = await call(c, 'whoami');
            expect(me.data.user.id).toBe(people[i]!.id);
            const listed = await call(c, 'list_fragments', { workspaceId: spaces[i]!.id, limit: 50 });
            expect(listed.data.fragments.every((f: any) => f.title.startsWith(`Session ${i} `))).toBe(true);
            expect(listed.data.totalCount).toBe(round + 1);
            const foreign = await call(c, 'list_fragments', { workspaceId: spaces[(i + 1) % 10]!.id });
            expect(foreign.isError).toBe(true);
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 60_000);
});
