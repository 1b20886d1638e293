import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicFetch, refusedUrl, refusedUrlForm } from './public-fetch.js';

describe('publicFetch', () => {
  let base: string;
  const server = createServer((req, res) => {
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () =>
        res
          .writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] })
          .end(JSON.stringify({ method: req.method, host: req.headers.host, accept: req.headers.accept, body })),
      );
    } else if (req.url === '/empty') res.writeHead(204).end();
    else if (req.url === '/hang') res.writeHead(200, { 'content-length': '10' }).write('12345');
    else if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
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

  it('judges a URL without DNS when it is saved: scheme, credentials, literal addresses and localhost names', () => {
    const strict = { allowPrivate: false };
    expect(refusedUrlForm(new URL('http://idp.example/jwks'), strict)).toBe('not HTTPS');
    expect(refusedUrlForm(new URL('https://localhost:8443/jwks'), strict)).toBe('a loopback name');
    expect(refusedUrlForm(new URL('https://keys.localhost./jwks'), strict)).toBe('a loopback name');
    expect(refusedUrlForm(new URL('https://127.0.0.1/internal-admin/jwks'), strict)).toMatch(/loopback/);
    expect(refusedUrlForm(new URL('https://0x7f.1/jwks'), strict)).toMatch(/loopback/); // the URL parser normalises it
    expect(refusedUrlForm(new URL('https://[::ffff:169.254.169.254]/'), strict)).toMatch(/linkLocal/);
    expect(refusedUrlForm(new URL('https://u:p@idp.example/'), strict)).toBe('credentials in the URL');
    // A name is not resolved here: fetch time (refusedUrl) judges its addresses.
    expect(refusedUrlForm(new URL('https://idp.example/jwks'), strict)).toBeNull();
    const tests = { allowPrivate: true };
    expect(refusedUrlForm(new URL('http://127.0.0.1:9000/jwks'), tests)).toBeNull();
    expect(refusedUrlForm(new URL('http://localhost:9000/jwks'), tests)).toBeNull();
    expect(refusedUrlForm(new URL('https://169.254.169.254/latest'), tests)).toMatch(/linkLocal/);
  });

  it('with the test setting reaches loopback, still never link-local, never follows redirects, caps the size', async () => {
    const tests = { allowPrivate: true, maxBytes: 1024 };
    expect(await (await publicFetch(`${base}/`, {}, tests)).json()).toEqual({ keys: [] });
    expect(await refusedUrl(new URL('http://169.254.169.254/'), tests)).toMatch(/linkLocal/);
    await expect(publicFetch(`${base}/redirect`, {}, tests)).rejects.toThrow(/redirect/);
    await expect(publicFetch(`${base}/big`, {}, tests)).rejects.toThrow(/more than 1024 bytes/);
  });

  it('connects to the addresses it checked, not to what the name resolves to at connection time (DNS rebinding)', async () => {
    const port = new URL(base).port;
    // First answer loopback (allowed by the test setting), then the metadata address. A fetch
    // that resolved again when connecting would reach 169.254.169.254 (or fail on the .test name).
    const answers = [
      [{ address: '127.0.0.1', family: 4 as const }],
      [{ address: '169.254.169.254', family: 4 as const }],
    ];
    let calls = 0;
    const lookup = async () => answers[Math.min(calls++, 1)];
    const response = await publicFetch(`http://jwks.rebind.test:${port}/echo`, {}, { allowPrivate: true, lookup });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ host: `jwks.rebind.test:${port}` });
    expect(calls).toBe(1);
    // The second resolution is the checked one now, and it is refused before any connection.
    await expect(
      publicFetch(`http://jwks.rebind.test:${port}/echo`, {}, { allowPrivate: true, lookup }),
    ).rejects.toThrow(/linkLocal/);
  });

  it('sends the method, headers and body, answers status and headers, and gives up at the deadline', async () => {
    const tests = { allowPrivate: true };
    const response = await publicFetch(
      `${base}/echo`,
      { method: 'POST', headers: { accept: 'application/jwk-set+json' }, body: 'ping' },
      tests,
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toMatchObject({ method: 'POST', accept: 'application/jwk-set+json', body: 'ping' });
    const empty = await publicFetch(`${base}/empty`, {}, tests);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    await expect(publicFetch(`${base}/hang`, {}, { ...tests, timeoutMs: 200 })).rejects.toThrow(/abort/i);
  });
});
