import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { startReceiver } from './receiver.js';

/**
 * The target rules over HTTP on a platform with its DEFAULT settings: every form of a
 * non-public destination is refused at configuration time (400, nothing stored), and the test
 * setting the other suites use is off unless set.
 */
const REFUSED: Array<[string, string]> = [
  ['plain http', 'http://hooks.example.com/in'],
  ['loopback literal', 'https://127.0.0.1/in'],
  ['localhost', 'https://localhost/in'],
  ['octal loopback', 'https://0177.0.0.1/in'],
  ['hex loopback', 'https://0x7f.0.0.1/in'],
  ['integer loopback', 'https://2130706433/in'],
  ['IPv6 loopback', 'https://[::1]/in'],
  ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
  ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data'],
  ['private 10/8', 'https://10.0.0.1/in'],
  ['private 172.16/12', 'https://172.16.0.1/in'],
  ['private 192.168/16', 'https://192.168.1.1/in'],
  ['carrier-grade NAT', 'https://100.64.0.1/in'],
  ['IPv6 unique local', 'https://[fd00::1]/in'],
  ['unspecified', 'https://0.0.0.0/in'],
  ['a name that does not resolve', 'https://no-such-host.invalid/in'],
  ['credentials in the URL', 'https://user:pass@hooks.example.com/in'],
  // What is stored and shown is what deliveries use: no control characters, no fragment.
  ['raw CR/LF', 'https://93.184.216.34/\r\nX: y'],
  ['a raw tab', 'https://93.184.216.34/in\tx'],
  ['a fragment', 'https://93.184.216.34/in#token=x'],
  // Forms URL parsing rewrites: the stored URL would not be the one called.
  ['backslashes', 'https:\\\\93.184.216.34\\in'],
  ['one slash', 'https:/93.184.216.34/in'],
  ['an upper-case scheme', 'HTTPS://93.184.216.34/in'],
  ['full-width digits', 'https://\uff19\uff13.184.216.34/in'],
  ['dot segments', 'https://93.184.216.34/a/../in'],
  ['the default port', 'https://93.184.216.34:443/in'],
  ['a non-ASCII query', 'https://93.184.216.34/in?q=caf\u00e9'],
  // Query parameter names that read like a credential.
  ['?pass=', 'https://93.184.216.34/in?pass=x'],
  ['?passwd=', 'https://93.184.216.34/in?passwd=x'],
  ['?pwd=', 'https://93.184.216.34/in?pwd=x'],
  ['?jwt=', 'https://93.184.216.34/in?jwt=x'],
  ['?private_key=', 'https://93.184.216.34/in?private_key=x'],
  ['?client_secret=', 'https://93.184.216.34/in?client_secret=x'],
  ['?clientSecret=', 'https://93.184.216.34/in?clientSecret=x'],
  // Parameters after ";" (read as separators by several receiver stacks) and path parameters.
  ['?x=1;token=', 'https://93.184.216.34/in?x=1;token=abc'],
  ['?x=1;api_key=', 'https://93.184.216.34/in?x=1;api_key=abc'],
  [';jsessionid= in the path', 'https://93.184.216.34/in;jsessionid=ABC123?x=1'],
];

/** A name of this machine's hosts file that points at loopback or a private range (not "localhost"). */
function hostsNameResolvingPrivately(): string | undefined {
  const lines = readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().split(/\s+/));
  for (const [address, ...names] of lines) {
    if (!address || !/^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(address)) continue;
    const name = names.find((n) => n && !n.includes('localhost') && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return undefined;
}

describe('webhook targets (default settings)', () => {
  let p: Awaited<ReturnType<typeof startFragmentsPlatform>>;
  let owner: Person;
  let ws: string;
  const hooks = () => `/api/workspaces/${ws}/webhooks`;
  const create = (url: string) =>
    p.api.call(owner.auth, 'POST', hooks(), { name: 'target check', url, events: ['fragment.created'] });

  beforeAll(async () => {
    p = await startFragmentsPlatform();
    owner = await p.person();
    ws = (await p.workspace(owner)).id;
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it.each(REFUSED)('refuses %s (%s) with 400', async (_what, url) => {
    const res = await create(url);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'url' }] });
    expect(res.body.error).toBeTruthy();
  });

  it('refuses a name that resolves to a private address', async () => {
    const name = hostsNameResolvingPrivately();
    // The same rule is unit-tested with an injected resolver (libs/webhooks/src/service/targets); here the real one.
    if (!name) return expect.soft(name, 'no private name in /etc/hosts on this machine').toBeUndefined();
    const res = await create(`https://${name}/in`);
    expect(res.status, res.text).toBe(400);
    expect(res.text).not.toMatch(/127\.0\.0\.\d|10\.\d+\.\d+\.\d+/); // the answer does not reveal what the name resolved to
  });

  it('refuses a real receiver on this machine unless the documented test setting is on', async () => {
    const receiver = await startReceiver();
    try {
      for (const url of [receiver.url('/default'), receiver.localhostUrl('/default')]) {
        const res = await create(url);
        expect(res.status, res.text).toBe(400);
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('stored nothing for any refused target', async () => {
    const list = await p.api.ok(owner.auth, 'GET', hooks(), undefined, 200);
    expect(list.count).toBe(0);
  });

  it('accepts a public HTTPS address', async () => {
    const res = await p.api.call(owner.auth, 'POST', hooks(), {
      name: 'public',
      url: 'https://93.184.216.34/in',
      events: ['fragment.created'],
      enabled: false,
    });
    expect(res.status, res.text).toBe(201);
  });

  it('accepts query names that only contain a credential word (keyword, monkey) and percent-encoded characters', async () => {
    const url = 'https://93.184.216.34/in%20box?keyword=a&monkey=b&topic=c%23d';
    const res = await p.api.call(owner.auth, 'POST', hooks(), {
      name: 'harmless names',
      url,
      events: ['fragment.created'],
      enabled: false,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.webhook.url).toBe(url);
  });

  it('a PATCH to a URL with CR/LF or a fragment is refused with its reason, and the stored URL stays', async () => {
    const { webhook } = await p.api.ok(
      owner.auth,
      'POST',
      hooks(),
      { name: 'patched', url: 'https://93.184.216.34/kept', events: ['fragment.created'], enabled: false },
      201,
    );
    for (const [url, reason] of [
      ['https://93.184.216.34/in\r\nX-Injected: 1', 'invalid-url'],
      ['https://93.184.216.34/in#x', 'fragment'],
      ['https://93.184.216.34/in?jwt=x', 'query-credentials'],
      ['https://93.184.216.34:443/in', 'not-canonical'],
    ]) {
      const res = await p.api.call(owner.auth, 'PATCH', `${hooks()}/${webhook.id}`, { url });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', reason, fields: [{ field: 'url' }] });
    }
    const stored = await p.api.ok(owner.auth, 'GET', `${hooks()}/${webhook.id}`, undefined, 200);
    expect(stored.webhook.url).toBe('https://93.184.216.34/kept');
  });
});
