import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { formUrlEncodedParser, jsonParser, rawJsonBody } from './route-bodies.js';

const parse = (url: string, body: string | Buffer) =>
  new Promise<{ err: Error | null; body?: unknown }>((resolve) =>
    formUrlEncodedParser({ formUrlEncoded: [{ method: 'POST', url: '/oauth2/token' }] })(
      { method: 'POST', routeOptions: { url } },
      Buffer.isBuffer(body) ? body : Buffer.from(body),
      (err, parsed) => resolve({ err, body: parsed }),
    ),
  );

describe('form-encoded bodies', () => {
  it('parses declared routes into strings', async () => {
    expect(await parse('/oauth2/token', 'grant_type=refresh_token&scope=a+b%20c')).toEqual({
      err: null,
      body: { grant_type: 'refresh_token', scope: 'a b c' },
    });
  });

  it('refuses a parameter sent twice (RFC 6749 §3.2)', async () => {
    const { err } = await parse('/oauth2/token', 'grant_type=a&grant_type=b');
    expect(err).toMatchObject({ statusCode: 400 });
    expect(err!.message).toMatch(/grant_type/);
  });

  it('answers 415 on every other route', async () => {
    expect((await parse('/api/workspaces', 'name=x')).err).toMatchObject({ statusCode: 415 });
  });

  it('refuses bytes that are not UTF-8, raw or percent-encoded, and keeps a U+FFFD that was sent', async () => {
    const raw = Buffer.concat([Buffer.from('grant_type=a&scope='), Buffer.from([0xff, 0xfe])]);
    for (const body of [raw, 'grant_type=a&scope=%FF%FE', 'grant_type=a&%C3=x']) {
      expect((await parse('/oauth2/token', body)).err).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    }
    expect(await parse('/oauth2/token', 'scope=%EF%BF%BD%C3%A9')).toEqual({ err: null, body: { scope: '\uFFFDé' } });
  });
});

describe('JSON bodies', () => {
  const parser = jsonParser(Fastify(), { rawJson: [{ method: 'POST', url: '/hooks/provider' }] });
  const parse = (url: string, body: string | Buffer, contentType = 'application/json') => {
    const request = { method: 'POST', routeOptions: { url }, headers: { 'content-type': contentType } };
    return new Promise<{ err: Error | null; body?: unknown; raw?: string }>((resolve) =>
      parser(request, Buffer.isBuffer(body) ? body : Buffer.from(body), (err, parsed) =>
        resolve({ err, body: parsed, raw: rawJsonBody(request) }),
      ),
    );
  };

  it('keeps the exact text on declared routes only, and parses both alike', async () => {
    const text = '{\n  "id": "evt_1",\n  "n": 1.50\n}';
    expect(await parse('/hooks/provider', text)).toEqual({ err: null, body: { id: 'evt_1', n: 1.5 }, raw: text });
    expect(await parse('/api/workspaces', text)).toEqual({ err: null, body: { id: 'evt_1', n: 1.5 }, raw: undefined });
  });

  it("answers Fastify's own errors: empty, invalid, prototype poisoning", async () => {
    expect((await parse('/hooks/provider', '')).err).toMatchObject({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY' });
    expect((await parse('/api/workspaces', '{"a":')).err).toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    expect((await parse('/api/workspaces', '{"__proto__": {"x": 1}}')).err).toBeTruthy();
  });

  it('refuses bytes that are not UTF-8 (400 INVALID_JSON) instead of storing U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
    for (const url of ['/api/workspaces', '/hooks/provider']) {
      const answer = await parse(url, body);
      expect(answer.err).toMatchObject({
        status: 400,
        code: 'INVALID_JSON',
        message: 'The request body is not valid UTF-8',
      });
      expect(answer.raw).toBeUndefined();
    }
    expect(await parse('/api/workspaces', '{"title":"caf\u00e9 \ufffd"}')).toMatchObject({
      err: null,
      body: { title: 'café \ufffd' },
    });
  });

  it('reads a declared charset of UTF-8 and refuses any other with 415', async () => {
    for (const type of [
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
      'application/json; charset=utf8',
    ])
      expect((await parse('/api/workspaces', '{"a":"é"}', type)).body, type).toEqual({ a: 'é' });
    for (const type of [
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; CHARSET=iso-8859-1',
    ])
      expect((await parse('/api/workspaces', '{"a":1}', type)).err, type).toMatchObject({
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
  });

  it('names a refused prototype key instead of calling the body invalid JSON', async () => {
    expect((await parse('/api/workspaces', '{"a":{"__proto__":{"x":1}}}')).err).toMatchObject({
      status: 400,
      code: 'INVALID_JSON',
      message: expect.stringContaining('"__proto__" (at a.__proto__)'),
    });
    expect((await parse('/api/workspaces', '[{"constructor":{"prototype":{}}}]')).err).toMatchObject({
      code: 'INVALID_JSON',
      message: expect.stringContaining('"constructor" holding "prototype" (at [0].constructor.prototype)'),
    });
    expect((await parse('/api/workspaces', '{"__proto__": ')).err).toMatchObject({
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
    });
    expect((await parse('/api/workspaces', '{"constructor":"x"}')).body).toEqual({ constructor: 'x' });
  });
});
