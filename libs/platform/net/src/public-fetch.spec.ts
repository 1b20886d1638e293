import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicFetch, refusedUrl } from './public-fetch.js';

describe('publicFetch', () => {
  let base: string;
  const server = createServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    else if (req.url === '/big') res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(2048));
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses plain HTTP, private, loopback and link-local addresses and credentials without the test setting', async () => {
    const strict = { allowPrivate: false };
    expect(await refusedUrl(new URL('http://example.com/jwks'), strict)).toBe('not HTTPS');
    expect(await refusedUrl(new URL('https://127.0.0.1/jwks'), strict)).toMatch(/loopback/);
    expect(await refusedUrl(new URL('https://10.0.0.1/jwks'), strict)).toMatch(/private/);
    expect(await refusedUrl(new URL('https://169.254.169.254/latest'), strict)).toMatch(/linkLocal/);
    expect(await refusedUrl(new URL('https://u:p@93.184.216.34/'), strict)).toBe('credentials in the URL');
    await expect(publicFetch(`${base}/`, {}, strict)).rejects.toThrow(/refused/);
  });

  it('with the test setting reaches loopback, still never link-local, never follows redirects, caps the size', async () => {
    const tests = { allowPrivate: true, maxBytes: 1024 };
    expect(await (await publicFetch(`${base}/`, {}, tests)).json()).toEqual({ keys: [] });
    expect(await refusedUrl(new URL('http://169.254.169.254/'), tests)).toMatch(/linkLocal/);
    await expect(publicFetch(`${base}/redirect`, {}, tests)).rejects.toThrow(/redirect/);
    await expect(publicFetch(`${base}/big`, {}, tests)).rejects.toThrow(/more than 1024 bytes/);
  });
});
