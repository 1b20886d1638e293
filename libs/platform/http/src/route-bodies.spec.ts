import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { formUrlEncodedParser, jsonParser, rawJsonBody } from './route-bodies.js';

const parse = (url: string, body: string) =>
  new Promise<{ err: Error | null; body?: unknown }>((resolve) =>
    formUrlEncodedParser({ formUrlEncoded: [{ method: 'POST', url: '/oauth2/token' }] })(
      { method: 'POST', routeOptions: { url } },
      Buffer.from(body),
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
});

describe('JSON bodies', () => {
  const parser = jsonParser(Fastify(), { rawJson: [{ method: 'POST', url: '/hooks/provider' }] });
  const parse = (url: string, body: string) => {
    const request = { method: 'POST', routeOptions: { url } };
    return new Promise<{ err: Error | null; body?: unknown; raw?: string }>((resolve) =>
      parser(request, Buffer.from(body), (err, parsed) => resolve({ err, body: parsed, raw: rawJsonBody(request) })),
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
});
