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
