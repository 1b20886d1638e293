import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, KNOWN_ENV_KEYS, loadConfig } from './app-config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults on an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      RUN_MODE: 'embedded',
      PORT: 3000,
      DATA_DIR: './.data',
      LOG_LEVEL: 'info',
      SERVICE_TIMEOUT_MS: 10_000,
    });
    expect(config.publicUrl).toBe('http://localhost:3000');
  });

  it('converts numbers, booleans and lists', () => {
    const config = loadConfig({ PORT: '8080', DIAGNOSTICS_ENABLED: 'true', TARGETS: 'gateway, fragments' });
    expect(config.PORT).toBe(8080);
    expect(config.DIAGNOSTICS_ENABLED).toBe(true);
    expect(config.TARGETS).toEqual(['gateway', 'fragments']);
  });

  it('names every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', RUN_MODE: 'cluster', NATS_URL: 'http://x', TARGETS: 'gateway,nope' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as ConfigError).message;
      for (const name of ['PORT', 'RUN_MODE', 'NATS_URL', 'TARGETS']) expect(text).toContain(`${name}:`);
    }
  });

  it('refuses a URL setting without its http(s) scheme, which new URL() would reject later', () => {
    const urls = ['STRIPE_API_URL', 'PUBLIC_URL', 'AI_BASE_URL', 'WEB_SEARCH_URL', 'BILLING_RETURN_URL', 'QDRANT_URL'];
    try {
      loadConfig(Object.fromEntries(urls.map((name) => [name, 'notaurl'])));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      for (const name of urls) expect((err as ConfigError).message).toContain(`${name}:`);
    }
    expect(loadConfig({ STRIPE_API_URL: 'http://127.0.0.1:3621' }).STRIPE_API_URL).toBe('http://127.0.0.1:3621');
  });

  const problemsOf = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).message;
    }
    return '';
  };

  it('takes true/false, 1/0, yes/no and on/off for a boolean, and refuses anything else', () => {
    const booleans = [
      'LOG_PRETTY',
      'DIAGNOSTICS_ENABLED',
      'S3_FORCE_PATH_STYLE',
      'WEBHOOKS_ALLOW_PRIVATE_TARGETS',
      'AGENT_JWKS_ALLOW_PRIVATE',
      'HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS',
      'EMBED_JWKS_ALLOW_PRIVATE',
    ];
    const withBucket = { S3_BUCKET: 'files' };
    for (const [word, value] of [
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['yes', true],
      ['On', true],
      ['false', false],
      ['0', false],
      ['no', false],
      ['OFF', false],
    ] as const) {
      const config = loadConfig({ ...withBucket, ...Object.fromEntries(booleans.map((name) => [name, word])) });
      for (const name of booleans) expect(config[name as keyof typeof config], `${name}=${word}`).toBe(value);
    }
    // `maybe` used to mean false, silently flipping S3_FORCE_PATH_STYLE's default (true).
    const text = problemsOf({ ...withBucket, ...Object.fromEntries(booleans.map((name) => [name, 'maybe'])) });
    for (const name of booleans) expect(text).toContain(`${name}: ${name} must be true or false`);
    expect(loadConfig(withBucket).S3_FORCE_PATH_STYLE).toBe(true);
  });

  it('refuses an S3 setting without S3_BUCKET, which would store files on local disk instead', () => {
    for (const name of [
      'S3_ENDPOINT',
      'S3_REGION',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'S3_FORCE_PATH_STYLE',
    ]) {
      const value = name === 'S3_ENDPOINT' ? 'http://127.0.0.1:9000' : name === 'S3_FORCE_PATH_STYLE' ? 'false' : 'x';
      expect(problemsOf({ [name]: value })).toContain(`S3_BUCKET: required when ${name} is set`);
    }
    expect(loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000', S3_BUCKET: 'files' }).S3_BUCKET).toBe('files');
  });

  it('requires what the chosen web search provider needs', () => {
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'searxng' })).toContain(
      'WEB_SEARCH_URL: required when WEB_SEARCH_PROVIDER=searxng',
    );
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'exa' })).toContain(
      'WEB_SEARCH_API_KEY: required when WEB_SEARCH_PROVIDER=exa',
    );
    expect(loadConfig({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: 'http://searxng:8080' })).toBeDefined();
    expect(loadConfig({ WEB_SEARCH_PROVIDER: 'exa', WEB_SEARCH_API_KEY: 'k' })).toBeDefined();
  });

  it('refuses MCP_ALLOWED_ORIGINS entries that are not http(s) origins, and a HOST that is no address or host name', () => {
    expect(problemsOf({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, notanorigin' })).toContain(
      'MCP_ALLOWED_ORIGINS:',
    );
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' }).MCP_ALLOWED_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    for (const host of ['not_a_host!', 'a b', '-x']) expect(problemsOf({ HOST: host }), host).toContain('HOST:');
    for (const host of ['0.0.0.0', '::', '::1', '127.0.0.1', 'localhost', 'kw-gateway', 'gateway.internal.example'])
      expect(loadConfig({ HOST: host }).HOST).toBe(host);
  });

  it('keeps the headers and body idle timeouts within the time to receive a whole request', () => {
    expect(problemsOf({ REQUEST_RECEIVE_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toContain(
      'HEADERS_TIMEOUT_MS: must not exceed REQUEST_RECEIVE_TIMEOUT_MS (5000)',
    );
    expect(problemsOf({ REQUEST_RECEIVE_TIMEOUT_MS: '5000', BODY_IDLE_TIMEOUT_MS: '6000' })).toContain(
      'BODY_IDLE_TIMEOUT_MS: must not exceed REQUEST_RECEIVE_TIMEOUT_MS (5000)',
    );
    expect(problemsOf({ BODY_IDLE_TIMEOUT_MS: '0' })).toContain('BODY_IDLE_TIMEOUT_MS:');
    expect(
      loadConfig({ REQUEST_RECEIVE_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5000', BODY_IDLE_TIMEOUT_MS: '1000' }),
    ).toMatchObject({ REQUEST_RECEIVE_TIMEOUT_MS: 5000, HEADERS_TIMEOUT_MS: 5000, BODY_IDLE_TIMEOUT_MS: 1000 });
  });

  it('requires DATABASE_URL and NATS_URL in distributed mode', () => {
    expect(() => loadConfig({ RUN_MODE: 'distributed' })).toThrow(/DATABASE_URL: required[\s\S]*NATS_URL: required/);
    expect(
      loadConfig({ RUN_MODE: 'distributed', DATABASE_URL: 'postgres://h/db', NATS_URL: 'nats://h:4222' }).RUN_MODE,
    ).toBe('distributed');
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ SOMETHING_ELSE: 'x' })).not.toThrow();
  });

  it('documents every variable it reads', () => {
    const doc = readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');
    const missing = KNOWN_ENV_KEYS.filter((key) => !doc.includes(`\`${key}\``));
    expect(missing).toEqual([]);
    expect(KNOWN_ENV_KEYS).toContain('DATABASE_URL');
  });
});
