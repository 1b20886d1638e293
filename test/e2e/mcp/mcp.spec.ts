import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { SEARCH_QUERY_MAX } from '@kw/contracts';
import { createToken } from '../../support/accounts.js';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { call, connectMcp } from './mcp-fixture.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('MCP endpoint (official SDK client over HTTP)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let viewer: Person;
  let ws: { id: string; noteTypeId: string };
  let other: { id: string; noteTypeId: string };
  let client: Client;
  let fragmentId: string;

  beforeAll(async () => {
    p = await startFragmentsPlatform();
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
    const all = await call(client, 'search', { query: 'billing queue', mode: 'keyword' });
    expect(all.data.hits.map((h: any) => h.fragmentId)).toContain(fragmentId);
    const agentic = await call(client, 'agentic_search', { workspaceId: ws.id, query: 'who restarts billing' });
    expect(agentic.isError, agentic.text).toBe(false);
    expect(agentic.data.leads.map((l: any) => l.fragmentId)).toContain(fragmentId);
    expect(agentic.data.steps.length).toBeGreaterThan(0);
    const related = await call(client, 'related', { workspaceId: ws.id, query: 'Ada Lovelace' });
    expect(related.isError, related.text).toBe(false);
    expect(related.data.entities.map((e: any) => e.name)).toContain('Ada Lovelace');
    // Each entity once, although the query's seeds are among the graph's nodes too.
    const entityIds = related.data.entities.map((e: any) => e.id);
    expect(entityIds).toEqual([...new Set(entityIds)]);
    expect(related.data.fragments.map((f: any) => f.fragmentId)).toContain(fragmentId);
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
