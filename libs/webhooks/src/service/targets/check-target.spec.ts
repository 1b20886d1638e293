import { loadConfig } from '@kw/platform-config';
import { AppError } from '@kw/platform-errors';
import { describe, expect, it, vi } from 'vitest';
import {
  checkTarget,
  checkTargetCanonical,
  checkTargetText,
  looksLikeCredential,
  type LookupAll,
  type TargetPolicy,
} from './check-target.js';
import { TargetRefusedError } from './target-refused.error.js';

const DEFAULT_POLICY: TargetPolicy = { allowPrivateTargets: false };
const TEST_SETTING: TargetPolicy = { allowPrivateTargets: true };

/** A resolver with fixed answers; a name it does not know fails like ENOTFOUND. */
function fakeDns(answers: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(lookup, { calls });
}

async function refusal(promise: Promise<unknown>): Promise<TargetRefusedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetRefusedError);
  return error as TargetRefusedError;
}

describe('checkTarget: refused with the default policy', () => {
  const dns = fakeDns({
    'example.com': ['93.184.216.34'],
    'internal.example.com': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  });

  it.each([
    ['http://', 'http://example.com/hook', 'scheme', undefined],
    ['https://127.0.0.1', 'https://127.0.0.1/hook', 'address', 'loopback'],
    ['localhost', 'https://localhost/hook', 'localhost', 'loopback'],
    ['localhost with a trailing dot', 'https://localhost./hook', 'localhost', 'loopback'],
    ['a *.localhost name', 'https://app.localhost/hook', 'localhost', 'loopback'],
    ['octal 0177.0.0.1', 'https://0177.0.0.1/hook', 'address', 'loopback'],
    ['hex 0x7f.0.0.1', 'https://0x7f.0.0.1/hook', 'address', 'loopback'],
    ['decimal 2130706433', 'https://2130706433/hook', 'address', 'loopback'],
    ['short 127.1', 'https://127.1/hook', 'address', 'loopback'],
    ['[::1]', 'https://[::1]/hook', 'address', 'loopback'],
    ['[::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/hook', 'address', 'loopback'],
    ['[::127.0.0.1] (IPv4-compatible)', 'https://[::127.0.0.1]/hook', 'address', 'reserved'],
    ['[2002:7f00:1::] (6to4 of 127.0.0.1)', 'https://[2002:7f00:1::]/hook', 'address', 'loopback'],
    ['169.254.169.254 (cloud metadata)', 'https://169.254.169.254/latest/meta-data', 'address', 'linkLocal'],
    ['10.0.0.1', 'https://10.0.0.1/hook', 'address', 'private'],
    ['172.16.0.1', 'https://172.16.0.1/hook', 'address', 'private'],
    ['192.168.1.1', 'https://192.168.1.1/hook', 'address', 'private'],
    ['100.64.0.1', 'https://100.64.0.1/hook', 'address', 'carrierGradeNat'],
    ['[fd00::1]', 'https://[fd00::1]/hook', 'address', 'uniqueLocal'],
    ['0.0.0.0', 'https://0.0.0.0/hook', 'address', 'unspecified'],
    ['0 (short for 0.0.0.0)', 'https://0/hook', 'address', 'unspecified'],
    ['224.0.0.1', 'https://224.0.0.1/hook', 'address', 'multicast'],
    ['a name resolving to a private address', 'https://internal.example.com/hook', 'address', 'private'],
    ['a name with one private address among public ones', 'https://mixed.example.com/hook', 'address', 'private'],
    ['a name resolving to the metadata address', 'https://metadata.example.com/hook', 'address', 'linkLocal'],
    ['a name resolving to an IPv4-mapped loopback', 'https://mapped.example.com/hook', 'address', 'loopback'],
    ['a name that does not resolve', 'https://nowhere.example.com/hook', 'dns', undefined],
    ['https://user:pass@host', 'https://user:pass@example.com/hook', 'credentials', undefined],
    ['a user name without password', 'https://user@example.com/hook', 'credentials', undefined],
    ['a token in the query', 'https://example.com/hook?token=abc', 'query-credentials', undefined],
    ['an api key in the query', 'https://example.com/hook?X-Api-Key=abc', 'query-credentials', undefined],
    ['an access_token in the query', 'https://example.com/hook?a=1&access_token=abc', 'query-credentials', undefined],
    ['port 0', 'https://example.com:0/hook', 'port', undefined],
    ['not a URL', 'example.com/hook', 'invalid-url', undefined],
    ['ftp://', 'ftp://example.com/hook', 'scheme', undefined],
  ])('refuses %s', async (_case, url, reason, range) => {
    const error = await refusal(checkTarget(url, DEFAULT_POLICY, dns));
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason, ...(range ? { range } : {}) });
    expect(error.message).toMatch(/^Webhook target refused: /);
  });

  it('lets WHATWG parsing normalise numeric IPv4 forms to 127.0.0.1 (the check sees the canonical form)', () => {
    for (const host of ['0177.0.0.1', '0x7f.0.0.1', '2130706433', '127.1'])
      expect(new URL(`https://${host}/`).hostname).toBe('127.0.0.1');
  });

  it('never sends a literal address to DNS', async () => {
    const lookup = vi.fn<LookupAll>();
    await refusal(checkTarget('https://127.0.0.1/', DEFAULT_POLICY, lookup));
    await checkTarget('https://93.184.216.34/', DEFAULT_POLICY, lookup);
    await checkTarget('https://[2606:4700::1111]/', DEFAULT_POLICY, lookup);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses localhost by name before any DNS lookup', async () => {
    const lookup = vi.fn<LookupAll>();
    await refusal(checkTarget('https://localhost/', DEFAULT_POLICY, lookup));
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses a name the real resolver cannot resolve (nonexistent.invalid) as dns', async () => {
    const error = await refusal(checkTarget('https://nonexistent.invalid/hook', DEFAULT_POLICY));
    expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason: 'dns' });
  });

  it('refuses when resolution takes longer than the DNS timeout', async () => {
    const hanging: LookupAll = () => new Promise(() => {});
    const error = await refusal(
      checkTarget('https://slow.example.com/', { ...DEFAULT_POLICY, dnsTimeoutMs: 20 }, hanging),
    );
    expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason: 'dns' });
  });

  it('refuses a name that resolves to no address at all', async () => {
    const error = await refusal(checkTarget('https://empty.example.com/', DEFAULT_POLICY, async () => []));
    expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason: 'dns' });
  });

  it('does not say which address a name resolved to (no internal DNS leak)', async () => {
    const error = await refusal(checkTarget('https://internal.example.com/hook', DEFAULT_POLICY, dns));
    expect(JSON.stringify(error.toJSON())).not.toContain('10.1.2.3');
  });
});

describe('query parameter names that look like a credential', () => {
  it.each([
    'token',
    'TOKEN',
    'access_token',
    'X-Api-Key',
    'apiKey',
    'APIKey',
    'key',
    'sig',
    'auth',
    'session_id',
    'pass',
    'passwd',
    'pwd',
    'user_pwd',
    'password2',
    'jwt',
    'id_jwt',
    'private_key',
    'privateKey',
    'client_secret',
    'clientSecret',
    'accesstoken',
    'passphrase',
    'x-auth',
    'credentials',
  ])('refuses %s', (name) => {
    expect(looksLikeCredential(name)).toBe(true);
  });

  it.each([
    'keyword',
    'monkey',
    'key_id',
    'passage',
    'bypass',
    'author',
    'topic',
    'signup',
    'tokenizer',
    'page',
    'code',
  ])('accepts %s', (name) => {
    expect(looksLikeCredential(name)).toBe(false);
  });

  it.each(['pass', 'jwt', 'private_key', 'client_secret'])(
    'refuses a target URL with the query parameter %s',
    async (name) => {
      const error = await refusal(checkTarget(`https://93.184.216.34/hook?${name}=x`, DEFAULT_POLICY));
      expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason: 'query-credentials' });
    },
  );
});

describe('checkTargetText: credentials after ";" and in path parameters', () => {
  it.each([
    'https://93.184.216.34/hook?x=1;token=abc',
    'https://93.184.216.34/hook?x=1;api_key=abc',
    'https://93.184.216.34/hook?x=1;%74oken=abc',
    'https://93.184.216.34/hook;jsessionid=ABC123?x=1',
    'https://93.184.216.34/a;v=1/hook;PHPSESSID=abc',
    'https://93.184.216.34/hook;token',
  ])('refuses %s', (url) => {
    expect(() => checkTargetText(url)).toThrow(expect.objectContaining({ reason: 'query-credentials' }));
  });

  it.each(['https://93.184.216.34/hook?x=1;lang=fr', 'https://93.184.216.34/a;v=1/hook;type=json'])(
    'accepts harmless parameters: %s',
    (url) => {
      expect(() => checkTargetText(url)).not.toThrow();
    },
  );
});

describe('checkTargetText: what is stored is what is used', () => {
  it.each([
    ['CR LF', 'https://93.184.216.34/\r\nX: y', 'invalid-url'],
    ['a tab', 'https://93.184.216.34/a\tb', 'invalid-url'],
    ['a NUL', 'https://93.184.216.34/a\u0000', 'invalid-url'],
    ['DEL', 'https://93.184.216.34/a\u007f', 'invalid-url'],
    ['a C1 control', 'https://93.184.216.34/a\u0085', 'invalid-url'],
    ['a space', 'https://93.184.216.34/a b', 'invalid-url'],
    ['a leading space', ' https://93.184.216.34/', 'invalid-url'],
    ['a fragment', 'https://93.184.216.34/in#token=x', 'fragment'],
    ['an empty fragment', 'https://93.184.216.34/in#', 'fragment'],
  ])('refuses %s', (_case, url, reason) => {
    let error: unknown;
    try {
      checkTargetText(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect((error as TargetRefusedError).details).toMatchObject({ fields: [{ field: 'url' }], reason });
  });

  it('accepts percent-encoded characters and non-ASCII text (checkTargetCanonical refuses the latter)', () => {
    expect(() => checkTargetText('https://hooks.example.com/a%20b/%23?q=caf%C3%A9&name=café')).not.toThrow();
  });
});

describe('checkTargetCanonical: stored as URL parsing reads it', () => {
  it.each([
    ['backslashes', 'https:\\\\93.184.216.34\\hook', 'https://93.184.216.34/hook'],
    ['one slash', 'https:/93.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['no slash', 'https:93.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['an upper-case scheme', 'HTTPS://93.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['an upper-case host', 'https://Hooks.Example.com/hook', 'https://hooks.example.com/hook'],
    ['full-width digits', 'https://\uff19\uff13.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['dot segments', 'https://93.184.216.34/a/../hook', 'https://93.184.216.34/hook'],
    ['the default port', 'https://93.184.216.34:443/hook', 'https://93.184.216.34/hook'],
    ['a non-ASCII query', 'https://93.184.216.34/hook?q=caf\u00e9', 'https://93.184.216.34/hook?q=caf%C3%A9'],
    ['a non-ASCII path', 'https://93.184.216.34/caf\u00e9', 'https://93.184.216.34/caf%C3%A9'],
    ['an IDN host', 'https://b\u00fccher.example/hook', 'https://xn--bcher-kva.example/hook'],
    ['an octal address', 'https://0135.184.216.34/hook', 'https://93.184.216.34/hook'],
  ])('refuses %s, naming the form deliveries would use', (_case, url, canonical) => {
    let error: unknown;
    try {
      checkTargetCanonical(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect((error as TargetRefusedError).details).toMatchObject({
      fields: [{ field: 'url', problems: [expect.stringContaining(canonical)] }],
      reason: 'not-canonical',
    });
  });

  it.each([
    'https://93.184.216.34/hook',
    'https://93.184.216.34:8443/hook?a=1&b=%C3%A9',
    'https://hooks.example.com/a%20b/%23?q=caf%C3%A9',
    'https://[2606:4700::1111]/hook',
    // An empty path is sent as "/" whether it is written or not: harmless, accepted as written.
    'https://hooks.example.com',
    'https://hooks.example.com?x=1',
  ])('accepts %s', (url) => {
    expect(() => checkTargetCanonical(url)).not.toThrow();
  });
});

describe('checkTarget: accepted', () => {
  it.each([
    ['https://93.184.216.34/hook', '93.184.216.34', 4],
    ['https://[2606:4700::1111]/hook', '2606:4700::1111', 6],
  ] as const)('accepts the public literal %s', async (url, address, family) => {
    const target = await checkTarget(url, DEFAULT_POLICY);
    expect(target.hostname).toBe(address);
    expect(target.addresses).toEqual([{ address, family }]);
    expect(target.port).toBe(443);
  });

  it('accepts a name whose every address is public, keeping those addresses, the port and the query, dropping the fragment', async () => {
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34', '2606:4700::1111', '93.184.216.34'] });
    const target = await checkTarget('https://Hooks.Example.com:8443/in?topic=a#frag', DEFAULT_POLICY, dns);
    expect(dns.calls).toEqual(['hooks.example.com']);
    expect(target.hostname).toBe('hooks.example.com');
    expect(target.port).toBe(8443);
    expect(target.url.href).toBe('https://hooks.example.com:8443/in?topic=a');
    expect(target.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });
});

describe('checkTarget: the test setting (WEBHOOKS_ALLOW_PRIVATE_TARGETS)', () => {
  it('is off by default, and the default configuration refuses a loopback target', async () => {
    const policyFrom = (env: Record<string, string>) => ({
      allowPrivateTargets: loadConfig(env).WEBHOOKS_ALLOW_PRIVATE_TARGETS ?? false,
    });
    expect(policyFrom({})).toEqual({ allowPrivateTargets: false });
    await refusal(checkTarget('https://127.0.0.1:8443/hook', policyFrom({})));
    expect(policyFrom({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' })).toEqual({ allowPrivateTargets: true });
    await checkTarget('https://127.0.0.1:8443/hook', policyFrom({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }));
  });

  it.each(['https://127.0.0.1:8443/hook', 'https://[::1]/hook', 'https://10.0.0.1/hook', 'https://[fd00::1]/hook'])(
    'allows %s',
    async (url) => {
      const target = await checkTarget(url, TEST_SETTING);
      expect(target.addresses).toHaveLength(1);
    },
  );

  it('allows localhost, checking what it resolves to', async () => {
    const target = await checkTarget(
      'https://localhost:9443/',
      TEST_SETTING,
      fakeDns({ localhost: ['127.0.0.1', '::1'] }),
    );
    expect(target.addresses.map((a) => a.address)).toEqual(['127.0.0.1', '::1']);
  });

  it.each([
    ['http://127.0.0.1/hook', 'scheme'],
    ['https://user:pass@127.0.0.1/hook', 'credentials'],
    ['https://127.0.0.1/hook?secret=x', 'query-credentials'],
  ])('still refuses %s (%s)', async (url, reason) => {
    const error = await refusal(checkTarget(url, TEST_SETTING));
    expect(error.details).toMatchObject({ reason });
  });

  it.each([
    ['https://169.254.169.254/', 'linkLocal'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
  ])('still refuses %s (%s)', async (url, range) => {
    const error = await refusal(checkTarget(url, TEST_SETTING));
    expect(error.details).toMatchObject({ fields: [{ field: 'url' }], reason: 'address', range });
  });

  it('still refuses a name that does not resolve', async () => {
    const error = await refusal(checkTarget('https://nonexistent.invalid/', TEST_SETTING));
    expect(error.details).toMatchObject({ reason: 'dns' });
  });
});
