import { rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, createToken, userWithToken } from '../../support/accounts.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startSearxngStandIn, type SearxngStandIn } from '../../support/stand-ins/searxng-stand-in.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { describeWith } from '../../support/services.js';
import {
  scriptedProviders,
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
} from '../../support/stand-ins/scripted-model-stand-in.js';
import { call } from './chat-fixture.js';

const ISSUER = 'https://idp.shop.test';
const AUDIENCE = 'kw-embed-shop';
const SITE = 'https://shop.example';
const WARRANTY = 'The Zephyr kettle carries a seven-year warranty on its heating element.';

interface SseEvent {
  event: string;
  data: any;
}

/** The events of an embed answer, in order. */
function eventsOf(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) };
    });
}

const lastTool = (request: ScriptedRequest) =>
  JSON.parse([...request.messages].reverse().find((m) => m.role === 'tool')!.content);

/**
 * The embed chat over real HTTP, with a scripted model on loopback in OpenAI's wire format that
 * answers the tool calls each test chose: a host page's user (a JWT of a test issuer) asks, the
 * agent searches the workspace as that user and answers with the fragment's content, streamed;
 * stored and stateless conversations; every refusal of key, origin, token, context and model;
 * a structured question paused and resumed once; feedback stored as a fragment. On PostgreSQL, so
 * the tests read what was stored (conversations, usage) where an operator would.
 */
describeWith(['postgres'], 'embed chat (/api/v2/embed)', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-embed-chat-');
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: pg.Client;
  let model: ScriptedModel;
  let searxng: SearxngStandIn;
  let platform: PlatformProcess;
  let base: string;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  let visitor: Awaited<ReturnType<typeof userWithToken>>;
  let issuerKey: CryptoKey;
  let publicJwk: JWK;
  let ws: string;
  let fragmentId: string;
  let privateFragmentId: string;
  let configId: string;
  let statelessConfigId: string;
  let key: string;
  let statelessKey: string;
  let firstAnswerId: string;
  const api = (token: string, method: string, path: string, body?: unknown) => call(base, token, method, path, body);

  const jwtFor = (
    email: string,
    options: {
      issuer?: string;
      audience?: string;
      expiresIn?: string;
      key?: CryptoKey;
      /** null: no `kid` in the header. */
      kid?: string | null;
      claims?: Record<string, unknown>;
    } = {},
  ) =>
    new SignJWT({ email, email_verified: true, ...options.claims })
      .setProtectedHeader(options.kid === null ? { alg: 'ES256' } : { alg: 'ES256', kid: options.kid ?? 'shop-1' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setSubject(`shop-user-${email}`)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '10m')
      .sign(options.key ?? issuerKey);

  /** An embed request as the host page's script sends it. */
  async function embed(
    path: string,
    options: {
      key?: string | null;
      origin?: string | null;
      jwt?: string;
      body?: unknown;
      method?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    const query = options.key === null ? '' : `?key=${encodeURIComponent(options.key ?? key)}`;
    const res = await fetch(`${base}/api/v2/embed/${path}${query}`, {
      method: options.method ?? 'POST',
      headers: {
        ...(options.origin === null ? {} : { origin: options.origin ?? SITE }),
        ...(options.jwt ? { authorization: `Bearer ${options.jwt}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    const text = await res.text();
    const isStream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    let json: any;
    if (!isStream && text) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json, events: isStream ? eventsOf(text) : [] };
  }

  const ask = async (content: string, extra: Record<string, unknown> = {}, embedKey = key) =>
    embed('chat', {
      key: embedKey,
      jwt: await jwtFor(visitor.user.email),
      body: { messages: [{ role: 'user', content }], ...extra },
    });

  beforeAll(async () => {
    model = await startScriptedModel(['scripted-1', 'scripted-2']);
    searxng = await startSearxngStandIn();
    database = await createTestDatabase('kw_embed');
    db = new pg.Client({ connectionString: database.url });
    platform = await startEmbedded(dataDir, {
      DATABASE_URL: database.url,
      ...admin,
      WEB_SEARCH_PROVIDER: 'searxng',
      WEB_SEARCH_URL: searxng.url,
      CHAT_PROVIDERS: scriptedProviders(model),
      // The JWKS test serves its keys over plain HTTP on loopback.
      EMBED_JWKS_ALLOW_PRIVATE: 'true',
      // A plan change shows within a second instead of five.
      PLAN_CACHE_MS: '1000',
      // Everyone on an open plan; the budget test moves one visitor to a spent one.
      PLANS: JSON.stringify({
        default: 'open',
        plans: [
          { id: 'open', name: 'Open' },
          { id: 'spent', name: 'Spent', limits: { monthlyTokens: 0 } },
        ],
      }),
    });
    base = platform.url;
    await db.connect();
    [owner, visitor] = await Promise.all([
      userWithToken(base, admin.ADMIN_TOKEN),
      userWithToken(base, admin.ADMIN_TOKEN),
    ]);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    issuerKey = privateKey;
    publicJwk = { ...(await exportJWK(publicKey)), kid: 'shop-1', alg: 'ES256', use: 'sig' };

    ws = (await api(owner.token, 'POST', '/api/workspaces', { name: 'Product docs' })).body.workspace.id;
    const typeOf = async (token: string, workspaceId: string) =>
      (await api(token, 'GET', `/api/workspaces/${workspaceId}/fragment-types`)).body.items[0].id as string;
    const fragment = await api(owner.token, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: await typeOf(owner.token, ws),
      title: 'Zephyr kettle warranty',
      content: WARRANTY,
    });
    expect(fragment.status, fragment.text).toBe(201);
    fragmentId = fragment.body.fragment.id;
    // The visitor is a viewer of the workspace: their own access applies to every tool call.
    const invited = await api(owner.token, 'POST', `/api/workspaces/${ws}/members`, {
      email: visitor.user.email,
      role: 'viewer',
    });
    expect(invited.status, invited.text).toBe(201);
    expect(
      (await api(visitor.token, 'POST', `/api/invitations/${invited.body.invitation.id}/accept`)).status,
    ).toBeLessThan(300);
    // A workspace of the visitor's own, outside the configuration's.
    const mine = (await api(visitor.token, 'POST', '/api/workspaces', { name: 'Visitor notes' })).body.workspace.id;
    const privateFragment = await api(visitor.token, 'POST', '/api/memory-fragments', {
      workspaceId: mine,
      fragmentTypeId: await typeOf(visitor.token, mine),
      title: 'Mine',
      content: 'Private notes',
    });
    expect(privateFragment.status, privateFragment.text).toBe(201);
    privateFragmentId = privateFragment.body.fragment.id;

    const trustedIssuer = { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [publicJwk] } };
    const config = await api(owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: 'Shop assistant',
      model: 'scripted-1',
      modelLocked: true,
      features: { feedbackMode: 'fragment-feedback', structuredQuestions: true },
      systemPrompt: 'Answer questions about our kettles.',
      trustedIssuer,
    });
    expect(config.status, config.text).toBe(201);
    configId = config.body.config.id;
    const created = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
      label: 'shop',
      allowedDomains: [SITE],
    });
    expect(created.status, created.text).toBe(201);
    key = created.body.token;

    const stateless = await api(owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: 'Stateless assistant',
      stateless: true,
      trustedIssuer,
    });
    statelessConfigId = stateless.body.config.id;
    statelessKey = (
      await api(owner.token, 'POST', `/api/v2/configs/${statelessConfigId}/keys`, { label: 'any site', public: true })
    ).body.token;

    // The fragment is searchable once indexed.
    for (let waited = 0; ; waited += 200) {
      const found = await api(owner.token, 'GET', `/api/search?workspaceId=${ws}&q=Zephyr+warranty`);
      if (found.body?.results?.length > 0) break;
      if (waited > 30_000) throw new Error(`the fragment was never found: ${found.text}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await platform?.stop();
    await database?.drop();
    await model?.close();
    await searxng?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('a conversation', () => {
    it('searches the workspace as the host page’s user and streams an answer with the fragment’s content', async () => {
      model.script(
        { toolCalls: [{ name: 'search', arguments: { query: 'Zephyr warranty', workspaceId: ws } }] },
        (request) => ({
          toolCalls: [{ name: 'get_fragment', arguments: { fragmentId: lastTool(request).hits[0].fragmentId } }],
        }),
        (request) => ({ text: `According to our docs: ${lastTool(request).fragment.content}` }),
      );
      const before = model.chatRequests().length;
      const res = await ask('How long is the warranty of the Zephyr kettle?');
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('access-control-allow-origin')).toBe(SITE);

      const names = res.events.map((e) => e.event);
      expect(names[0]).toBe('conversation');
      expect(names[names.length - 1]).toBe('done');
      const tools = res.events.filter((e) => e.event === 'tool').map((e) => `${e.data.name}:${e.data.status}`);
      expect(tools).toEqual(['search:started', 'search:ok', 'get_fragment:started', 'get_fragment:ok']);
      const deltas = res.events.filter((e) => e.event === 'delta');
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.map((e) => e.data.text).join('')).toBe(`According to our docs: ${WARRANTY}`);

      const done = res.events[res.events.length - 1].data;
      expect(done).toMatchObject({
        messageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        conversationId: res.events[0].data.conversationId,
        finishReason: 'stop',
        usage: { modelCalls: 3, inputTokens: 300, outputTokens: 60 },
      });
      firstAnswerId = done.messageId;

      // What the model was given: the configuration's prompt and model, the default tools plus
      // ask_user (structured questions on; web search off), and the fragment found as the visitor.
      const requests = model.chatRequests().slice(before);
      expect(requests).toHaveLength(3);
      expect(requests[0].model).toBe('scripted-1');
      expect(requests[0].messages[0].role).toBe('system');
      expect(requests[0].messages[0].content).toContain('Answer questions about our kettles.');
      expect(requests[0].messages[0].content).toContain(ws);
      const offered = requests[0].tools!.map((t) => t.function.name);
      // The visitor (a host page's user) may read files: the file tools are offered.
      expect(offered).toEqual(
        expect.arrayContaining(['search', 'get_fragment', 'ask_user', 'search_workspace_files', 'read_workspace_file']),
      );
      expect(offered).not.toContain('web_search');
      expect(offered).not.toContain('create_fragment');
      expect(lastTool(requests[2]).fragment.id).toBe(fragmentId);

      // Every model call of the turn is in usage, for the visitor (enrichment of fragments has rows of its own).
      const usage = async () =>
        (await db.query("SELECT * FROM control.model_usage WHERE user_id = $1 AND kind = 'chat'", [visitor.user.id]))
          .rows;
      await expect.poll(async () => (await usage()).length, { timeout: 10_000 }).toBe(3);
      expect((await usage())[0]).toMatchObject({
        model: 'scripted-1',
        provider: 'scripted',
        input_tokens: 100,
        output_tokens: 20,
        status: 'ok',
      });

      // The turn is stored whole: the question, two tool rounds, the answer.
      const stored = await db.query(
        'SELECT m.id, m.role FROM control.embed_messages m JOIN control.embed_conversations c ON c.id = m.conversation_id WHERE c.id = $1 AND c.user_id = $2 ORDER BY m.seq',
        [done.conversationId, visitor.user.id],
      );
      expect(stored.rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
      expect(stored.rows.at(-1)!.id).toBe(done.messageId);
    });

    it('finds and reads an uploaded file for the visitor with the default file tools', async () => {
      const form = new FormData();
      form.append('workspaceId', ws);
      const manual = 'Zephyr kettle manual. Descaling: fill with one part vinegar to two parts water every 90 days.';
      form.append('file', new Blob([manual], { type: 'text/plain' }), 'zephyr-manual.txt');
      const uploaded = await fetch(`${base}/api/files/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}` },
        body: form,
      });
      expect(uploaded.status).toBe(201);
      const fileId = ((await uploaded.json()) as any).file.id as string;
      await expect
        .poll(async () => (await api(owner.token, 'GET', `/api/files/${fileId}/status`)).body.status, {
          timeout: 60_000,
          interval: 200,
        })
        .toBe('ready');

      model.script(
        { toolCalls: [{ name: 'search_workspace_files', arguments: { workspaceId: ws, query: 'descaling vinegar' } }] },
        (request) => ({
          toolCalls: [
            { name: 'read_workspace_file', arguments: { fileId: lastTool(request).hits[0].fileId, fromChunk: 0 } },
          ],
        }),
        (request) => ({ text: lastTool(request).chunks[0].text }),
      );
      const res = await ask('How do I descale the Zephyr kettle?');
      expect(res.status, res.text).toBe(200);
      const tools = res.events.filter((e) => e.event === 'tool').map((e) => `${e.data.name}:${e.data.status}`);
      expect(tools).toEqual([
        'search_workspace_files:started',
        'search_workspace_files:ok',
        'read_workspace_file:started',
        'read_workspace_file:ok',
      ]);
      const answer = res.events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join('');
      expect(answer).toContain('one part vinegar to two parts water');
    });

    it('continues the stored conversation on the next turn, for its user only', async () => {
      const firstConversation = (await ask('warm-up')).events[0].data.conversationId as string;
      model.script((request) => ({
        text: `You asked before: ${request.messages
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .join(' | ')}`,
      }));
      const res = await ask('And the lid?', { conversationId: firstConversation });
      expect(res.status, res.text).toBe(200);
      const text = res.events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join('');
      expect(text).toBe('You asked before: warm-up | And the lid?');
      expect(res.events[res.events.length - 1].data.conversationId).toBe(firstConversation);

      // The history the model saw came from the store: the first turn's answer is in it.
      const seen = model.chatRequests().at(-1)!.messages;
      expect(seen.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain('(unscripted)');

      // The owner of the configuration is another user: the same id is no conversation of theirs.
      const theirs = await embed('chat', {
        jwt: await jwtFor(owner.user.email),
        body: { messages: [{ role: 'user', content: 'hi' }], conversationId: firstConversation },
      });
      expect(theirs.status).toBe(404);
      expect(theirs.json.code).toBe('NOT_FOUND');
    });

    it('round-trips X-Embed-Session-Id in stateless mode and keeps nothing', async () => {
      model.script({ text: 'first' });
      const first = await ask('Hello', {}, statelessKey);
      expect(first.status, first.text).toBe(200);
      const session = first.headers.get('x-embed-session-id')!;
      expect(session).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.headers.get('access-control-expose-headers')).toContain('x-embed-session-id');
      expect(first.events[0].data).toMatchObject({ conversationId: session, stateless: true });

      model.script((request) => ({ text: `history of ${request.messages.length - 1}` }));
      const second = await embed('chat', {
        key: statelessKey,
        jwt: await jwtFor(visitor.user.email),
        body: {
          conversationId: session,
          messages: [
            { role: 'user', content: 'Hello' },
            { role: 'assistant', content: 'first' },
            { role: 'user', content: 'Again' },
          ],
        },
      });
      expect(second.status, second.text).toBe(200);
      expect(second.headers.get('x-embed-session-id')).toBe(session);
      expect(
        second.events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('history of 3');
      expect(second.events.at(-1)!.data.conversationId).toBe(session);
      const kept = await db.query('SELECT count(*)::int AS n FROM control.embed_conversations WHERE config_id = $1', [
        statelessConfigId,
      ]);
      expect(kept.rows[0].n).toBe(0);
    });
  });

  it('documents the embed key scheme in the served OpenAPI document', async () => {
    const doc: any = await (await fetch(`${base}/api/docs`)).json();
    expect(doc.components.securitySchemes.embedKey).toMatchObject({ type: 'apiKey', in: 'query', name: 'key' });
    expect(doc.paths['/api/v2/embed/chat'].post.security).toEqual([{ embedKey: [] }]);
    expect(doc.paths['/api/v2/embed/feedback'].post.responses['201']).toBeDefined();
  });

  describe('identities', () => {
    it('verifies host tokens against a JWKS URL, fetched from the issuer', async () => {
      let fetched = 0;
      const jwksServer = createServer((_req, res) => {
        fetched++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
      });
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      try {
        const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
        const config = await api(owner.token, 'POST', '/api/v2/configs', {
          workspaceId: ws,
          name: 'Remote keys',
          trustedIssuer: { issuer: ISSUER, audience: AUDIENCE, jwksUrl },
        });
        expect(config.status, config.text).toBe(201);
        const remoteKey = (
          await api(owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
            label: 'r',
            allowedDomains: [SITE],
          })
        ).body.token;
        model.script({ text: 'remote ok' });
        const res = await ask('hi', {}, remoteKey);
        expect(res.status, res.text).toBe(200);
        expect(res.events.at(-1)!.event).toBe('done');
        expect(fetched).toBeGreaterThan(0);
      } finally {
        jwksServer.close();
      }
    });

    /** A JWKS endpoint on loopback answering `route` with `answer`, for the length of `use`. */
    async function withJwks(
      answer: (route: string, res: ServerResponse) => void,
      use: (keyFor: (route: string) => Promise<string>) => Promise<void>,
    ) {
      const jwksServer = createServer((req, res) => answer(req.url ?? '', res));
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      const keyFor = async (route: string) => {
        const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}${route}`;
        const config = await api(owner.token, 'POST', '/api/v2/configs', {
          workspaceId: ws,
          name: `Keys ${route}`,
          trustedIssuer: { issuer: ISSUER, audience: AUDIENCE, jwksUrl },
        });
        expect(config.status, config.text).toBe(201);
        return (
          await api(owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
            label: route,
            allowedDomains: [SITE],
          })
        ).body.token as string;
      };
      try {
        await use(keyFor);
      } finally {
        jwksServer.close();
      }
    }
    const kidlessChat = async (embedKey: string, signer: CryptoKey) =>
      embed('chat', {
        key: embedKey,
        jwt: await jwtFor(visitor.user.email, { key: signer, kid: null }),
        body: { messages: [{ role: 'user', content: 'hello' }] },
      });

    it('tries each key of the JWKS for a token without kid (an issuer rotating its keys publishes two)', async () => {
      const [older, newer, stranger] = await Promise.all([1, 2, 3].map(() => generateKeyPair('ES256')));
      const kidless = async (pair: { publicKey: CryptoKey }) => ({
        ...(await exportJWK(pair.publicKey)),
        alg: 'ES256',
        use: 'sig',
      });
      const both = JSON.stringify({ keys: [await kidless(older!), await kidless(newer!)] });
      await withJwks(
        (_route, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(both),
        async (keyFor) => {
          const two = await keyFor('/two');
          for (const signer of [newer!.privateKey, older!.privateKey]) {
            model.script({ text: 'either key' });
            const res = await kidlessChat(two, signer);
            expect(res.status, res.text).toBe(200);
            expect(res.events.at(-1)!.event).toBe('done');
          }
          const refused = await kidlessChat(two, stranger!.privateKey);
          expect(refused.status).toBe(401);
          expect(refused.json.error).toContain('its signature does not verify');
        },
      );
    });

    it('says the key set could not be fetched when the JWKS URL answers 503 or something else than JSON', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      await withJwks(
        (route, res) => {
          if (route === '/down') res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
          else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not a key set</html>');
        },
        async (keyFor) => {
          for (const route of ['/down', '/garbage']) {
            const res = await kidlessChat(await keyFor(route), privateKey);
            expect(res.status, `${route}: ${res.text}`).toBe(401);
            expect(res.json.code).toBe('UNAUTHENTICATED');
            expect(res.json.error).toContain("the trusted issuer's key set could not be fetched");
          }
        },
      );
    });

    it("runs as the key's scoped token when the host page sends no JWT", async () => {
      const created = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'kiosk',
        allowedDomains: [SITE],
        scopedToken: owner.token,
      });
      expect(created.status, created.text).toBe(201);
      model.script({ toolCalls: [{ name: 'list_collections', arguments: { workspaceId: ws } }] }, { text: 'listed' });
      const res = await embed('chat', {
        key: created.body.token,
        body: { messages: [{ role: 'user', content: 'collections?' }] },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.events.filter((e) => e.event === 'tool').map((e) => e.data.status)).toEqual(['started', 'ok']);
      await expect
        .poll(
          async () =>
            (
              await db.query(
                "SELECT count(*)::int AS n FROM control.model_usage WHERE user_id = $1 AND kind = 'chat'",
                [owner.user.id],
              )
            ).rows[0].n,
        )
        .toBe(2);
    });
    it("offers no file tools when the key's scoped token may not read files", async () => {
      const offeredWith = async (scopedToken: string) => {
        const created = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
          label: 'scoped',
          allowedDomains: [SITE],
          scopedToken,
        });
        expect(created.status, created.text).toBe(201);
        const before = model.chatRequests().length;
        model.script({ text: 'hello' });
        const res = await embed('chat', {
          key: created.body.token,
          body: { messages: [{ role: 'user', content: 'hello?' }] },
        });
        expect(res.status, res.text).toBe(200);
        return model
          .chatRequests()
          .slice(before)[0]!
          .tools!.map((t) => t.function.name);
      };
      const narrow = await createToken(base, owner.token, {
        scopes: ['chat:use', 'workspaces:read', 'fragments:read', 'collections:read', 'search:read'],
      });
      const without = await offeredWith(narrow.token);
      expect(without).toEqual(expect.arrayContaining(['search', 'get_fragment', 'list_collections']));
      expect(without).not.toContain('search_workspace_files');
      expect(without).not.toContain('read_workspace_file');
      // The same key with files:read in its token: offered.
      const reader = await createToken(base, owner.token, {
        scopes: ['chat:use', 'workspaces:read', 'fragments:read', 'collections:read', 'search:read', 'files:read'],
      });
      expect(await offeredWith(reader.token)).toEqual(
        expect.arrayContaining(['search', 'search_workspace_files', 'read_workspace_file']),
      );
    });

    it("stops admitting a key's scoped token the moment it is revoked, and counts each turn as a use of it", async () => {
      // The scoped token's authentication is cached between turns (AUTH_CACHE_TTL_MS, 10 s by
      // default): the revocation's broadcast must drop it, and cached turns must still count.
      const scoped = await createToken(base, owner.token, { name: 'kiosk token' });
      const created = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'kiosk, revoked later',
        allowedDomains: [SITE],
        scopedToken: scoped.token,
      });
      expect(created.status, created.text).toBe(201);
      const turn = () =>
        embed('chat', { key: created.body.token, body: { messages: [{ role: 'user', content: 'hello?' }] } });
      for (const text of ['first', 'second']) {
        model.script({ text });
        const res = await turn();
        expect(res.status, res.text).toBe(200);
      }
      // Three uses: the key's creation checked the token, then two turns, the second answered
      // from the cache (its use reaches the analytics within about a second).
      await expect
        .poll(async () => (await api(owner.token, 'GET', `/api/tokens/${scoped.id}/analytics`)).body.totalRequests, {
          timeout: 5_000,
        })
        .toBe(3);
      expect((await api(owner.token, 'DELETE', `/api/tokens/${scoped.id}`)).status).toBe(204);
      const refused = await turn();
      expect(refused.status, refused.text).toBe(401);
      expect(refused.json.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('the agent', () => {
    it('hands a turn to the expert whose routing keyword it mentions, with its prompt and tools', async () => {
      const expert = await api(owner.token, 'POST', '/api/v2/experts', {
        name: 'Descaling',
        workspaceId: ws,
        expertConfig: {
          systemPrompt: 'You know everything about limescale.',
          enabledTools: ['get_fragment'],
          routing: { keywords: ['descale'] },
        },
      });
      expect(expert.status, expert.text).toBe(201);
      model.script({ text: 'Use vinegar.' }, { text: 'plain' });
      const routed = await ask('How do I descale it?');
      expect(routed.events[0].data.expert).toEqual({ id: expert.body.expert.id, name: 'Descaling', routed: true });
      const seen = model.chatRequests().at(-1)!;
      expect(seen.messages[0].content).toContain('You know everything about limescale.');
      expect(seen.tools!.map((t) => t.function.name)).toEqual(['get_fragment']);

      const other = await ask('Is it dishwasher safe?');
      expect(other.events[0].data.expert).toBeUndefined();
      expect(model.chatRequests().at(-1)!.messages[0].content).not.toContain('limescale');
      await api(owner.token, 'DELETE', `/api/v2/experts/${expert.body.expert.id}`);
    });

    it('stops after 8 model calls: the last one offers no tool call and ends the turn', async () => {
      const again = { toolCalls: [{ name: 'list_collections', arguments: { workspaceId: ws } }] };
      model.script(...Array.from({ length: 8 }, () => again));
      const before = model.chatRequests().length;
      const res = await ask('Loop forever');
      expect(res.status, res.text).toBe(200);
      const requests = model.chatRequests().slice(before);
      expect(requests).toHaveLength(8);
      expect(requests.slice(0, 7).map((r) => r.tool_choice)).toEqual(Array(7).fill('auto'));
      expect(requests[7].tool_choice).toBe('none');
      expect(res.events.filter((e) => e.event === 'tool' && e.data.status === 'ok')).toHaveLength(7);
      expect(res.events.at(-1)).toMatchObject({
        event: 'done',
        data: { finishReason: 'length', usage: { modelCalls: 8 } },
      });
    });

    it('records an estimate of a model call the provider breaks off before reporting its usage', async () => {
      const usageRows = async () =>
        (
          await db.query(
            `SELECT input_tokens, output_tokens, status FROM control.model_usage
              WHERE user_id = $1 AND kind = 'chat' AND status <> 'ok' ORDER BY at`,
            [visitor.user.id],
          )
        ).rows;
      const before = (await usageRows()).length;
      const text = 'The warranty of the Zephyr kettle lasts seven years on the heating element, two on the rest.';
      model.script({ text, cutAfter: 6 });
      const res = await ask('How long is the warranty?');
      const deltas = res.events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join('');
      expect(deltas).toBe('The warranty of the Zephyr kettle ');
      expect(res.events.some((e) => e.event === 'done')).toBe(false);
      // Records are sent in batches after the answer: wait for this one (the others' are 'ok').
      let rows = await usageRows();
      for (let waited = 0; rows.length === before && waited < 10_000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
        rows = await usageRows();
      }
      const row = rows.at(-1)!;
      expect(rows).toHaveLength(before + 1);
      expect(row.status).toBe('upstream_error');
      // The relayed text's characters / 4, and the prompt (the instructions and the question) estimated.
      expect(row.output_tokens).toBe(Math.ceil(deltas.length / 4));
      expect(row.input_tokens).toBeGreaterThan(Math.ceil('How long is the warranty?'.length / 4));
    });

    it('searches the web only where the configuration enables it and the user has web-search access', async () => {
      const config = await api(owner.token, 'POST', '/api/v2/configs', {
        workspaceId: ws,
        name: 'With the web',
        features: { webSearch: true },
        trustedIssuer: { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [publicJwk] } },
      });
      const webKey = (
        await api(owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
          label: 'w',
          allowedDomains: [SITE],
        })
      ).body.token;
      const search = { toolCalls: [{ name: 'web_search', arguments: { query: 'kettle reviews', numResults: 2 } }] };
      model.script(search, (request) => ({ text: JSON.stringify(lastTool(request)) }));
      const refused = await ask('Reviews?', {}, webKey);
      expect(refused.events.find((e) => e.event === 'tool' && e.data.status !== 'started')!.data).toMatchObject({
        name: 'web_search',
        status: 'error',
      });
      expect(lastTool(model.chatRequests().at(-1)!).error.code).toBe('WEB_SEARCH_ACCESS_REQUIRED');

      expect(
        (await api(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${visitor.user.id}/web-search`)).status,
      ).toBeLessThan(300);
      model.script(search, (request) => ({ text: `found ${lastTool(request).results.length}` }));
      const allowed = await ask('Reviews?', {}, webKey);
      expect(
        allowed.events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('found 2');
      expect(searxng.requests.at(-1)!.url).toContain('kettle');
    });
  });

  describe('refusals', () => {
    const hello = { messages: [{ role: 'user', content: 'hello' }] };

    it('refuses a missing, unknown, revoked or expired key with 401 EMBED_KEY_INVALID', async () => {
      const jwt = await jwtFor(visitor.user.email);
      const missing = await embed('chat', { key: null, jwt, body: hello });
      const unknown = await embed('chat', { key: `kwek_${'x'.repeat(43)}`, jwt, body: hello });
      const revokedKey = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'old',
        allowedDomains: [SITE],
      });
      expect(
        (await api(owner.token, 'DELETE', `/api/v2/configs/${configId}/keys/${revokedKey.body.key.id}`)).status,
      ).toBe(204);
      const revoked = await embed('chat', { key: revokedKey.body.token, jwt, body: hello });
      const expiring = await api(owner.token, 'POST', `/api/v2/configs/${configId}/keys`, {
        label: 'short',
        allowedDomains: [SITE],
        expiresAt: new Date(Date.now() + 1_500).toISOString(),
      });
      expect(expiring.status, expiring.text).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const expired = await embed('chat', { key: expiring.body.token, jwt, body: hello });
      for (const res of [missing, unknown, revoked, expired]) {
        expect(res.status, res.text).toBe(401);
        expect(res.json.code).toBe('EMBED_KEY_INVALID');
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
    });

    it('refuses a foreign origin, and its preflight, without CORS headers; answers an allowed preflight', async () => {
      const foreign = await embed('chat', {
        origin: 'https://evil.example',
        jwt: await jwtFor(visitor.user.email),
        body: hello,
      });
      expect(foreign.status).toBe(403);
      expect(foreign.json.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      const noOrigin = await embed('chat', { origin: null, jwt: await jwtFor(visitor.user.email), body: hello });
      expect(noOrigin.status).toBe(403);
      // The frame's header names the page only on a same-origin request: a POST without Origin is
      // refused whatever Sec-Fetch-Site says (that rule is for a GET, which browsers send without
      // Origin). A body the API refuses tells the guard's verdict (403) from an admission (400).
      const frameHeaders = { 'x-embed-host-origin': SITE, 'sec-fetch-site': 'same-origin' };
      const jwt = await jwtFor(visitor.user.email);
      const postWithoutOrigin = await embed('chat', { origin: null, jwt, headers: frameHeaders, body: {} });
      expect(postWithoutOrigin.status, postWithoutOrigin.text).toBe(403);
      expect(postWithoutOrigin.json.code).toBe('ORIGIN_NOT_ALLOWED');
      const fromTheFrame = await embed('chat', { origin: new URL(base).origin, jwt, headers: frameHeaders, body: {} });
      expect(fromTheFrame.status, fromTheFrame.text).toBe(400);

      const preflightHeaders = {
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      };
      const badPreflight = await embed('chat', {
        method: 'OPTIONS',
        origin: 'https://evil.example',
        headers: preflightHeaders,
      });
      expect(badPreflight.status).toBe(403);
      expect(badPreflight.headers.get('access-control-allow-origin')).toBeNull();
      const preflight = await embed('chat', { method: 'OPTIONS', headers: preflightHeaders });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE);
      expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');

      // A public key takes any origin, and names it rather than '*'.
      const anywhere = await embed('chat', {
        key: statelessKey,
        method: 'OPTIONS',
        origin: 'https://other.example',
        headers: preflightHeaders,
      });
      expect(anywhere.status).toBe(204);
      expect(anywhere.headers.get('access-control-allow-origin')).toBe('https://other.example');
    });

    it('answers a body that is not JSON with its 400 and the CORS headers of an admitted origin only', async () => {
      const broken = async (origin: string) => {
        const res = await fetch(`${base}/api/v2/embed/chat?key=${encodeURIComponent(key)}`, {
          method: 'POST',
          headers: {
            origin,
            authorization: `Bearer ${await jwtFor(visitor.user.email)}`,
            'content-type': 'application/json',
          },
          body: '{"messages": [',
        });
        return { status: res.status, headers: res.headers, json: (await res.json()) as { code: string } };
      };
      // Refused by the body parser, before the route's guard: the page's script can still read why.
      const allowed = await broken(SITE);
      expect(allowed.status).toBe(400);
      expect(allowed.json.code).toBe('INVALID_JSON');
      expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE);
      expect(allowed.headers.get('access-control-expose-headers')).toBe('x-embed-session-id');
      const foreign = await broken('https://evil.example');
      expect(foreign.status).toBe(400);
      expect(foreign.json.code).toBe('INVALID_JSON');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses a JWT of another issuer, an expired one, one for another audience, and none at all', async () => {
      const { privateKey: otherKey } = await generateKeyPair('ES256');
      const cases = [
        [await jwtFor(visitor.user.email, { issuer: 'https://other-idp.test' }), 'trusted issuer'],
        [await jwtFor(visitor.user.email, { key: otherKey }), 'signature'],
        [await jwtFor(visitor.user.email, { expiresIn: '-2m' }), 'expired'],
        [await jwtFor(visitor.user.email, { audience: 'someone-else' }), 'audience'],
        [await jwtFor('nobody@nowhere.test'), 'user of this platform'],
        ['not-a-jwt', 'valid signed JWT'],
        // Only true (or "true", as some issuers serialise it) says the email is verified.
        [await jwtFor(visitor.user.email, { claims: { email_verified: false } }), 'its email is not verified'],
        [await jwtFor(visitor.user.email, { claims: { email_verified: 'false' } }), 'its email is not verified'],
        [await jwtFor(visitor.user.email, { claims: { email_verified: undefined } }), 'its email is not verified'],
        [await jwtFor(visitor.user.email, { claims: { email_verified: 1 } }), 'its email is not verified'],
      ] as const;
      for (const [jwt, why] of cases) {
        const res = await embed('chat', { jwt, body: hello });
        expect(res.status, `${why}: ${res.text}`).toBe(401);
        expect(res.json.code).toBe('UNAUTHENTICATED');
        expect(res.json.error).toContain(why);
      }
      // No JWT and no scoped token on the key: nobody to chat as.
      const anonymous = await embed('chat', { body: hello });
      expect(anonymous.status).toBe(401);
      model.script({ text: 'verified as a string' });
      const stringTrue = await embed('chat', {
        jwt: await jwtFor(visitor.user.email, { claims: { email_verified: 'true' } }),
        body: hello,
      });
      expect(stringTrue.status, stringTrue.text).toBe(200);
    });

    it('answers 404 for a context item outside the configuration’s workspace, and takes one inside', async () => {
      const outside = await ask('hi', { contextItems: [{ contextType: 'fragment', contextId: privateFragmentId }] });
      expect(outside.status, outside.text).toBe(404);
      expect(outside.json.code).toBe('NOT_FOUND');
      const unknown = await ask('hi', {
        contextItems: [{ contextType: 'collection', contextId: '00000000-0000-4000-8000-000000000000' }],
      });
      expect(unknown.status).toBe(404);

      model.script({ text: 'grounded' });
      const inside = await ask('hi', { contextItems: [{ contextType: 'fragment', contextId: fragmentId }] });
      expect(inside.status, inside.text).toBe(200);
      expect(model.chatRequests().at(-1)!.messages[0].content).toContain(WARRANTY);
    });

    it('refuses a visitor whose plan’s token budget is spent, before any model call', async () => {
      const spent = await userWithToken(base, admin.ADMIN_TOKEN);
      // A member: a JWT naming an account that cannot read the workspace is refused before anything.
      const invited = await api(owner.token, 'POST', `/api/workspaces/${ws}/members`, {
        email: spent.user.email,
        role: 'viewer',
      });
      expect((await api(spent.token, 'POST', `/api/invitations/${invited.body.invitation.id}/accept`)).status).toBe(
        200,
      );
      const assigned = await api(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${spent.user.id}/plan`, {
        planId: 'spent',
      });
      expect(assigned.status, assigned.text).toBe(204);
      const before = model.chatRequests().length;
      const res = await embed('chat', {
        jwt: await jwtFor(spent.user.email),
        body: { messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.status, res.text).toBe(403);
      expect(res.json).toMatchObject({ code: 'PLAN_LIMIT_REACHED', limit: 'monthlyTokens' });
      expect(model.chatRequests()).toHaveLength(before);
    });

    it('refuses another model on a configuration that locks its model', async () => {
      const res = await ask('hi', { model: 'scripted-2' });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('MODEL_LOCKED');
      model.script({ text: 'same model is fine' });
      expect((await ask('hi', { model: 'scripted-1' })).status).toBe(200);
    });
  });

  describe('structured questions', () => {
    it('pauses the turn on a question, resumes it once with the answers, and refuses a replay', async () => {
      model.script(
        {
          toolCalls: [
            {
              name: 'ask_user',
              arguments: {
                questions: [
                  { question: 'Which kettle do you own?', options: ['Zephyr', 'Zephyr Mini'], allowOther: true },
                ],
              },
            },
          ],
        },
        (request) => ({ text: `Noted: ${lastTool(request).answers[0].selected[0]}` }),
      );
      const paused = await ask('My kettle leaks');
      expect(paused.status, paused.text).toBe(200);
      const question = paused.events.at(-1)!;
      expect(question.event).toBe('question');
      expect(question.data).toMatchObject({
        resumeToken: expect.stringMatching(/^kwrt_/),
        expiresAt: expect.any(String),
        questions: [{ question: 'Which kettle do you own?', options: ['Zephyr', 'Zephyr Mini'], allowOther: true }],
      });
      expect(paused.events.some((e) => e.event === 'done')).toBe(false);

      const answer = {
        resumeToken: question.data.resumeToken,
        answers: [{ question: 'Which kettle do you own?', selected: ['Zephyr Mini'] }],
      };
      // Another user cannot use it, and does not use it up: it is bound to the visitor.
      const stolen = await embed('answer', { jwt: await jwtFor(owner.user.email), body: answer });
      expect(stolen.status).toBe(404);
      const resumed = await embed('answer', { jwt: await jwtFor(visitor.user.email), body: answer });
      expect(resumed.status, resumed.text).toBe(200);
      expect(
        resumed.events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('Noted: Zephyr Mini');
      const done = resumed.events.at(-1)!;
      expect(done.event).toBe('done');
      expect(done.data.conversationId).toBe(paused.events[0].data.conversationId);

      const replay = await embed('answer', { jwt: await jwtFor(visitor.user.email), body: answer });
      expect(replay.status).toBe(404);
      expect(replay.json.code).toBe('NOT_FOUND');
    });

    it('refuses answers the question did not offer, and the token still works after', async () => {
      model.script(
        {
          toolCalls: [
            {
              name: 'ask_user',
              arguments: { questions: [{ question: 'Which kettle?', options: ['Zephyr', 'Zephyr Mini'] }] },
            },
          ],
        },
        (request) => ({ text: `Noted: ${lastTool(request).answers[0].selected[0]}` }),
      );
      const paused = await ask('It leaks again');
      const { resumeToken } = paused.events.at(-1)!.data;
      const answerWith = async (answer: Record<string, unknown>) =>
        embed('answer', {
          jwt: await jwtFor(visitor.user.email),
          body: { resumeToken, answers: [{ question: 'Which kettle?', ...answer }] },
        });
      for (const [answer, field] of [
        [{ selected: ['A toaster'] }, 'answers[0].selected'],
        [{ selected: ['Zephyr', 'Zephyr Mini'] }, 'answers[0].selected'],
        [{ selected: [], other: 'A toaster' }, 'answers[0].other'],
      ] as const) {
        const refused = await answerWith(answer);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.json).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field }] });
      }
      const resumed = await answerWith({ selected: ['Zephyr'] });
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.events.at(-1)!.event).toBe('done');
      expect(
        resumed.events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).toBe('Noted: Zephyr');
    });

    it('refuses to resume a turn once the visitor’s budget is spent, and the token works again after', async () => {
      const member = await userWithToken(base, admin.ADMIN_TOKEN);
      const invited = await api(owner.token, 'POST', `/api/workspaces/${ws}/members`, {
        email: member.user.email,
        role: 'viewer',
      });
      expect((await api(member.token, 'POST', `/api/invitations/${invited.body.invitation.id}/accept`)).status).toBe(
        200,
      );
      model.script(
        { toolCalls: [{ name: 'ask_user', arguments: { questions: [{ question: 'Size?', options: ['big'] }] } }] },
        (request) => ({ text: `Noted: ${lastTool(request).answers[0].selected[0]}` }),
      );
      const paused = await embed('chat', {
        jwt: await jwtFor(member.user.email),
        body: { messages: [{ role: 'user', content: 'Which one?' }] },
      });
      expect(paused.status, paused.text).toBe(200);
      const { resumeToken } = paused.events.at(-1)!.data;
      const setPlan = async (planId: string) => {
        const assigned = await api(admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${member.user.id}/plan`, { planId });
        expect(assigned.status, assigned.text).toBe(204);
        // The gateway keeps an account's entitlements for PLAN_CACHE_MS (a second here).
        await new Promise((r) => setTimeout(r, 1500));
      };
      const answer = async () =>
        embed('answer', {
          jwt: await jwtFor(member.user.email),
          body: { resumeToken, answers: [{ question: 'Size?', selected: ['big'] }] },
        });
      await setPlan('spent');
      const before = model.chatRequests().length;
      const refused = await answer();
      expect(refused.status, refused.text).toBe(403);
      expect(refused.json).toMatchObject({ code: 'PLAN_LIMIT_REACHED', limit: 'monthlyTokens' });
      expect(model.chatRequests()).toHaveLength(before);

      await setPlan('open');
      const resumed = await answer();
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.events.at(-1)!.event).toBe('done');
    });

    it('refuses an expired resume token', async () => {
      model.script({
        toolCalls: [{ name: 'ask_user', arguments: { questions: [{ question: 'Colour?', options: ['red'] }] } }],
      });
      const paused = await ask('Pick for me');
      const { resumeToken } = paused.events.at(-1)!.data;
      await db.query("UPDATE control.embed_held_turns SET expires_at = now() - interval '1 second'");
      const late = await embed('answer', {
        jwt: await jwtFor(visitor.user.email),
        body: { resumeToken, answers: [{ question: 'Colour?', selected: ['red'] }] },
      });
      expect(late.status).toBe(404);
    });
  });

  describe('feedback', () => {
    it('stores feedback as an embed-feedback fragment in fragment-feedback mode', async () => {
      const res = await embed('feedback', {
        jwt: await jwtFor(visitor.user.email),
        body: { rating: 'positive', messageId: firstAnswerId, embedConfigId: configId, comment: 'Clear and quick' },
      });
      expect(res.status, res.text).toBe(201);
      const fragment = await api(owner.token, 'GET', `/api/memory-fragments/${res.json.fragmentId}`);
      expect(fragment.status, fragment.text).toBe(200);
      expect(fragment.body.fragment.workspaceId).toBe(ws);
      expect(fragment.body.fragment.content).toContain('Clear and quick');
      expect(fragment.body.fragment.content).toContain(WARRANTY);
      expect(fragment.body.fragment.tags).toEqual(expect.arrayContaining(['embed-feedback', 'rating-positive']));
      const types = await api(owner.token, 'GET', `/api/workspaces/${ws}/fragment-types`);
      const type = (types.body.items as Array<{ key: string; id: string }>).find(
        (t: { key: string }) => t.key === 'embed-feedback',
      );
      expect(type?.id).toBe(fragment.body.fragment.fragmentTypeId);
    });

    it('refuses feedback for an unknown answer, another configuration, or where the mode is not fragment-feedback', async () => {
      const jwt = await jwtFor(visitor.user.email);
      const unknown = await embed('feedback', {
        jwt,
        body: { rating: 'negative', messageId: '00000000-0000-4000-8000-000000000000', embedConfigId: configId },
      });
      expect(unknown.status).toBe(404);
      const other = await embed('feedback', {
        jwt,
        body: { rating: 'negative', messageId: firstAnswerId, embedConfigId: statelessConfigId },
      });
      expect(other.status).toBe(404);
      const off = await embed('feedback', {
        key: statelessKey,
        jwt,
        body: { rating: 'negative', messageId: firstAnswerId, embedConfigId: statelessConfigId },
      });
      expect(off.status).toBe(409);
      expect(off.json.code).toBe('FEEDBACK_DISABLED');
    });
  });
});
