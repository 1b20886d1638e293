import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from './fragments/fragments-fixture.js';
import { readJson } from '../support/http.js';
import { nodeRequest, rawRequest } from '../support/raw-http.js';

/**
 * Issue 15: hostile input answers 4xx in the error model, never 500, over real HTTP. Each case
 * is one a hostile API consumer sent; the fuzz suite (test/e2e/fuzz) covers every route.
 */
describe('hostile input', () => {
  let ctx: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let base: string;
  let alice: Person;
  let mallory: Person;
  let ws: { id: string; noteTypeId: string };
  let foreign: { id: string; noteTypeId: string };

  beforeAll(async () => {
    ctx = await startFragmentsPlatform();
    base = ctx.platform.url;
    [alice, mallory] = await Promise.all([ctx.person(), ctx.person()]);
    [ws, foreign] = await Promise.all([ctx.workspace(alice), ctx.workspace(mallory)]);
  });
  afterAll(async () => {
    await ctx?.stop();
  });

  const send = (method: string, path: string, body: unknown, auth?: string, contentType = 'application/json') =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), 'content-type': contentType },
      body: typeof body === 'string' || Buffer.isBuffer(body) ? (body as string | Buffer) : JSON.stringify(body),
    });

  async function expectFieldRefused(res: Response, field: string, problem: RegExp): Promise<void> {
    const body = await readJson(res);
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.fields).toEqual([{ field, problems: [expect.stringMatching(problem)] }]);
  }

  const fragmentCount = async (): Promise<number> => {
    const res = await fetch(`${base}/api/memory-fragments?workspaceId=${ws.id}&limit=1`, {
      headers: { authorization: `Bearer ${alice.auth}` },
    });
    return (await readJson(res)).total;
  };

  describe('NUL characters (PostgreSQL cannot store U+0000)', () => {
    it('an unauthenticated sign-in with NUL in the email is a 400 naming the field', async () => {
      await expectFieldRefused(
        await send('POST', '/api/auth/sign-in', { email: 'a\u0000b@x.y', password: 'p' }),
        'email',
        /NUL/,
      );
    });

    it.each([
      ['title', { title: 'a\u0000b' }],
      ['content', { content: 'text \u0000 more' }],
      ['tags[1]', { tags: ['ok', 'b\u0000d'] }],
    ])('a fragment with NUL in %s is refused and nothing is written', async (field, fields) => {
      const before = await fragmentCount();
      const res = await send(
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 't', content: 'c', ...fields },
        alice.auth,
      );
      await expectFieldRefused(res, field, /NUL/);
      expect(await fragmentCount()).toBe(before);
    });

    it('NUL in an object key is refused too', async () => {
      const res = await send('POST', '/api/workspaces', { name: 'n', 'x\u0000y': 1 }, alice.auth);
      const body = await readJson(res);
      expect(res.status).toBe(400);
      expect(body.code).toBe('VALIDATION_FAILED');
      expect(body.error).toMatch(/keys must not contain the NUL/);
    });

    it.each([
      ['/api/workspaces', { name: 'team\u0000' }, 'name'],
      ['/api/tokens', { name: 'ci\u0000', scopes: ['workspaces:read'] }, 'name'],
    ])('POST %s with NUL in a name is a 400', async (path, body, field) => {
      await expectFieldRefused(await send('POST', path, body, alice.auth), field, /NUL/);
    });

    it.each([
      ['/api/search?q=a%00b', 'q'],
      ['/api/workspaces/discover?q=%00', 'q'],
      ['/api/memory-fragments?workspaceId=WS&key=k%00', 'key'],
    ])('GET %s: NUL in a query parameter is a 400', async (path, field) => {
      const res = await fetch(`${base}${path.replace('WS', ws.id)}`, {
        headers: { authorization: `Bearer ${alice.auth}` },
      });
      await expectFieldRefused(res, field, /NUL/);
    });

    it('NUL in a path parameter is a 400', async () => {
      const res = await fetch(`${base}/api/workspaces/a%00b`, { headers: { authorization: `Bearer ${alice.auth}` } });
      await expectFieldRefused(res, 'id', /NUL/);
    });
  });

  describe('lone UTF-16 surrogates', () => {
    it('an invitation email with a lone surrogate is a 400, not the validator crashing', async () => {
      const res = await send(
        'POST',
        `/api/workspaces/${ws.id}/members`,
        '{"email":"\\ud800 x","role":"collaborator"}',
        alice.auth,
      );
      await expectFieldRefused(res, 'email', /lone UTF-16 surrogate/);
    });

    it('a lone low surrogate in a fragment title is refused; a well-formed pair is stored', async () => {
      const refused = await send(
        'POST',
        '/api/memory-fragments',
        `{"workspaceId":"${ws.id}","fragmentTypeId":"${ws.noteTypeId}","title":"x\\udc00","content":"c"}`,
        alice.auth,
      );
      await expectFieldRefused(refused, 'title', /surrogate/);
      const stored = await send(
        'POST',
        '/api/memory-fragments',
        { workspaceId: ws.id, fragmentTypeId: ws.noteTypeId, title: 'emoji \u{1F600}', content: 'c' },
        alice.auth,
      );
      expect(stored.status).toBe(201);
      expect((await readJson(stored)).fragment.title).toBe('emoji \u{1F600}');
    });
  });

  describe('query parameters whose percent-encoded bytes are not UTF-8', () => {
    it.each([
      ['/api/search?workspaceId=WS&q=%ED%A0%80zebra', 'q'], // a lone surrogate encoded as UTF-8
      ['/api/search?workspaceId=WS&q=%FFzebra', 'q'], // not UTF-8 at all
      ['/api/graph/entities?workspaceId=WS&q=%FF', 'q'],
      ['/api/memory-fragments?workspaceId=WS&key=k%C3', 'key'], // a cut sequence
    ])('GET %s is a 400 naming the parameter, never searched as typed', async (path, field) => {
      // Raw bytes, so the query string reaches the server exactly as written.
      const answer = await rawRequest(
        base,
        `GET ${path.replace('WS', ws.id)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${alice.auth}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, answer.text).toBe(400);
      const body = JSON.parse(answer.text.slice(answer.text.indexOf('{')));
      expect(body.code).toBe('VALIDATION_FAILED');
      expect(body.fields).toEqual([{ field, problems: [expect.stringMatching(/well-formed Unicode/)] }]);
    });

    it('well-formed percent-encoding and a literal % still search', async () => {
      for (const q of ['%C3%A9t%C3%A9', '100%', '%zz', 'a%2Bb+c']) {
        const res = await fetch(`${base}/api/search?workspaceId=${ws.id}&q=${q}`, {
          headers: { authorization: `Bearer ${alice.auth}` },
        });
        expect(res.status, `${q}: ${await res.clone().text()}`).toBe(200);
      }
    });
  });

  describe('deeply nested JSON', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

    it('10,000 levels answer 400 INVALID_JSON before authentication', async () => {
      for (const path of ['/api/auth/sign-in', '/api/workspaces', '/api/memory-fragments']) {
        const res = await send('POST', path, nested(10_000));
        expect(res.status, path).toBe(400);
        expect(await readJson(res)).toEqual({
          error: 'The request body is nested deeper than 64 levels',
          code: 'INVALID_JSON',
        });
      }
    });

    it('nesting within the bound reaches validation', async () => {
      const res = await send('POST', '/api/workspaces', { name: 'n', extra: JSON.parse(nested(60)) }, alice.auth);
      const body = await readJson(res);
      expect(res.status).toBe(400);
      expect(body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('bodies the edge reads: strict UTF-8 JSON, and only the types a route reads', () => {
    const bytes = (...parts: Array<string | number[]>) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const workspaceCount = async (): Promise<number> => {
      const res = await fetch(`${base}/api/workspaces`, { headers: { authorization: `Bearer ${alice.auth}` } });
      return (await readJson(res)).items.length;
    };

    it('a JSON body with bytes that are not UTF-8 is 400 INVALID_JSON, and nothing is stored (no U+FFFD)', async () => {
      const before = await fragmentCount();
      const body = bytes(
        `{"workspaceId":"${ws.id}","fragmentTypeId":"${ws.noteTypeId}","content":"c","title":"`,
        [0xff, 0xfe, 0xc3],
        '"}',
      );
      const res = await send('POST', '/api/memory-fragments', body, alice.auth);
      expect(res.status).toBe(400);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await readJson(res)).toEqual({ error: 'The request body is not valid UTF-8', code: 'INVALID_JSON' });
      expect(await fragmentCount()).toBe(before);
    });

    it('under /api/v1 the same refusal comes in the OpenAI shape', async () => {
      const body = bytes('{"model":"x","messages":[{"role":"user","content":"', [0xc3, 0x28], '"}]}');
      const res = await send('POST', '/api/v1/chat/completions', body, alice.auth);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({
        error: {
          message: 'The request body is not valid UTF-8',
          type: 'invalid_request_error',
          code: 'invalid_json',
          param: '',
        },
      });
    });

    it('an OAuth form body with percent-encoded bytes that are not UTF-8 is invalid_request', async () => {
      const res = await send(
        'POST',
        '/oauth2/token',
        'grant_type=refresh_token&refresh_token=%FF%FE',
        undefined,
        'application/x-www-form-urlencoded',
      );
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({
        error: 'invalid_request',
        error_description: 'The request body is not valid UTF-8 (percent-encoded bytes included)',
      });
    });

    it('text/plain on a JSON route is 415 UNSUPPORTED_MEDIA_TYPE, not a misleading validation error', async () => {
      const before = await workspaceCount();
      const res = await send('POST', '/api/workspaces', '{"name":"plain"}', alice.auth, 'text/plain');
      expect(res.status).toBe(415);
      expect(await readJson(res)).toEqual({ error: 'Unsupported Content-Type', code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(await workspaceCount()).toBe(before);
    });

    it('a request without a body passes whatever Content-Type it names', async () => {
      const res = await fetch(`${base}/api/notifications/read-all`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.auth}`, 'content-type': 'text/plain' },
      });
      expect(res.status, await res.text()).toBeLessThan(300);
    });

    it.each([
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json;charset=ISO-8859-1',
    ])('%s is 415, and nothing is stored', async (type) => {
      const before = await workspaceCount();
      const res = await send('POST', '/api/workspaces', { name: 'latin' }, alice.auth, type);
      expect(res.status).toBe(415);
      expect(await readJson(res)).toEqual({
        error: 'Unsupported Content-Type: the body must be UTF-8 (send charset=utf-8 or no charset)',
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
      expect(await workspaceCount()).toBe(before);
    });

    it('a declared charset of UTF-8 is read', async () => {
      const res = await send(
        'POST',
        '/api/workspaces',
        { name: 'caf\u00e9' },
        alice.auth,
        'application/json; charset=UTF-8',
      );
      expect(res.status).toBe(201);
      expect((await readJson(res)).workspace.name).toBe('caf\u00e9');
    });

    it.each([
      ['{"name":"n","__proto__":{"admin":true}}', '"__proto__" (at __proto__)'],
      [
        '{"name":"n","settings":{"constructor":{"prototype":{"admin":true}}}}',
        '"constructor" holding "prototype" (at settings.constructor.prototype)',
      ],
    ])('a body with a prototype key says which key it refuses: %s', async (body, named) => {
      const res = await send('POST', '/api/workspaces', body, alice.auth);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({
        error: `The request body contains the key ${named}, which is refused: it could change object prototypes`,
        code: 'INVALID_JSON',
      });
    });
  });

  describe("the framework's own refusals, in the error model with a request id", () => {
    it('an 8 KB path parameter is 414 URI_TOO_LONG without echoing the URL', async () => {
      const res = await fetch(`${base}/api/workspaces/${'a'.repeat(8192)}`, {
        headers: { authorization: `Bearer ${alice.auth}` },
      });
      const text = await res.text();
      expect(res.status).toBe(414);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(text)).toEqual({ error: 'A path segment is longer than 512 characters', code: 'URI_TOO_LONG' });
      expect(text).not.toContain('aaaa');
    });

    it('a path that does not decode is 400 BAD_REQUEST', async () => {
      const res = await fetch(`${base}/api/workspaces/%E0%A4%A`, {
        headers: { authorization: `Bearer ${alice.auth}` },
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect((await readJson(res)).code).toBe('BAD_REQUEST');
    });

    it('a 64 KB query is 431 HEADERS_TOO_LARGE in the platform shape', async () => {
      const res = await fetch(`${base}/api/search?q=${'a'.repeat(65_536)}`);
      expect(res.status).toBe(431);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await readJson(res)).toEqual({
        error: 'The request line and headers are larger than 16 KiB',
        code: 'HEADERS_TOO_LARGE',
      });
    });

    it('an oversized request under /api/v1 answers in the OpenAI shape', async () => {
      const res = await fetch(`${base}/api/v1/models?x=${'a'.repeat(65_536)}`);
      expect(res.status).toBe(431);
      expect((await readJson(res)).error).toMatchObject({ type: 'invalid_request_error', code: 'headers_too_large' });
    });

    it.each([
      ['a bare LF', 'X-Bad: a\nb'],
      ['a NUL', 'X-Bad: a\u0000b'],
    ])('%s in a header is 400 BAD_REQUEST with a request id', async (_name, header) => {
      const answer = await rawRequest(
        base,
        `GET /api/version HTTP/1.1\r\nHost: x\r\n${header}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(400);
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(answer.text)).toEqual({
        error: 'The request is not valid HTTP (malformed request line or header)',
        code: 'BAD_REQUEST',
      });
    });
  });

  describe('references into another tenant are refused like missing ids', () => {
    it("a workspace's default type must be one of its own types", async () => {
      const patch = (defaultFragmentTypeId: string | null) =>
        send('PATCH', `/api/workspaces/${ws.id}/settings`, { defaultFragmentTypeId }, alice.auth);
      for (const typeId of [foreign.noteTypeId, '00000000-0000-4000-8000-000000000000']) {
        const res = await patch(typeId);
        expect(res.status).toBe(400);
        expect(await readJson(res)).toEqual({
          error: 'defaultFragmentTypeId must be a fragment type of this workspace',
          code: 'INVALID_FRAGMENT_TYPE',
        });
      }
      const { settings } = await ctx.api.ok(alice.auth, 'GET', `/api/workspaces/${ws.id}/settings`, undefined, 200);
      expect(settings.defaultFragmentTypeId).toBeNull();
      const own = await patch(ws.noteTypeId);
      expect(own.status).toBe(200);
      expect(JSON.stringify(await readJson(own))).toContain(ws.noteTypeId);
    });

    it("a saved search cannot name another tenant's collection", async () => {
      const theirs = await ctx.api.ok(
        mallory.auth,
        'POST',
        `/api/workspaces/${foreign.id}/collections`,
        { name: 'private' },
        201,
      );
      const mine = await ctx.api.ok(alice.auth, 'POST', `/api/workspaces/${ws.id}/collections`, { name: 'mine' }, 201);
      const save = (collectionId: string) =>
        send('POST', '/api/search/saved', { workspaceId: ws.id, name: 's', q: 'x', collectionId }, alice.auth);
      await expectFieldRefused(await save(theirs.collection.id), 'collectionId', /collection of this workspace/);
      await expectFieldRefused(
        await save('00000000-0000-4000-8000-000000000000'),
        'collectionId',
        /collection of this workspace/,
      );
      const list = await readJson(
        await fetch(`${base}/api/search/saved?workspaceId=${ws.id}`, {
          headers: { authorization: `Bearer ${alice.auth}` },
        }),
      );
      expect(JSON.stringify(list)).not.toContain(theirs.collection.id);
      expect((await save(mine.collection.id)).status).toBe(201);
    });
  });

  it('two Authorization headers are refused as ambiguous (400), even when the first is valid', async () => {
    const answer = await nodeRequest(base, '/api/workspaces', {
      headers: { authorization: [`Bearer ${alice.auth}`, 'Bearer kwp_not-a-token'] },
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      error: 'The Authorization header was sent more than once; send exactly one credential',
      code: 'BAD_REQUEST',
    });
    const mcp = await nodeRequest(base, '/api/mcp', {
      method: 'POST',
      headers: { authorization: [`Bearer ${alice.auth}`, `Bearer ${alice.auth}`], 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(400);
    const single = await nodeRequest(base, '/api/workspaces', { headers: { authorization: `Bearer ${alice.auth}` } });
    expect(single.status).toBe(200);
  });

  it('a missing required field is reported as required, not as malformed', async () => {
    const res = await send(
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, title: 't', content: 'c' },
      alice.auth,
    );
    await expectFieldRefused(res, 'fragmentTypeId', /^is required$/);
    const malformed = await send(
      'POST',
      '/api/memory-fragments',
      { workspaceId: ws.id, fragmentTypeId: 'nope', title: 't', content: 'c' },
      alice.auth,
    );
    await expectFieldRefused(malformed, 'fragmentTypeId', /UUID/);
  });
});
