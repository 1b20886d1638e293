import { describe, expect, it } from 'vitest';
import { formUrlEncodedParser } from './route-bodies.js';

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
