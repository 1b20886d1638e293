import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@kw/platform-config';
import { loadProvidersConfig, parseProvidersConfig } from './providers-config.js';

const parse = (providers: unknown[], env: Record<string, string> = {}) =>
  parseProvidersConfig(JSON.stringify({ providers }), env);
const base = { id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1' };

describe('parseProvidersConfig', () => {
  it('applies the defaults and resolves apiKeyEnv from the env given', () => {
    const { providers } = parse(
      [
        { ...base, baseUrl: 'https://api.openai.com/v1/', apiKeyEnv: 'OPENAI_API_KEY' },
        { id: 'claude', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant-1', fallback: [] },
      ],
      { OPENAI_API_KEY: 'sk-from-env' },
    );
    expect(providers[0]).toEqual({
      id: 'openai',
      kind: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-from-env',
      auth: 'bearer',
      query: {},
      headers: {},
      timeoutMs: 60_000,
      retries: 2,
      discover: true,
      modelPrefix: '',
      fallback: [],
      models: [],
    });
    expect(providers[1].apiKey).toBe('sk-ant-1');
    expect(providers[1].baseUrl).toBe('https://api.anthropic.com');
  });

  it('keeps every optional field', () => {
    const { providers } = parse([
      {
        ...base,
        id: 'azure',
        auth: 'api-key',
        query: { 'api-version': '2024-10-21' },
        headers: { 'HTTP-Referer': 'https://example.org' },
        timeoutMs: 5000,
        retries: 0,
        discover: false,
        modelPrefix: 'azure/',
        fallback: ['openai'],
        models: [
          { id: 'gpt-4o', family: 'gpt-4o', vision: true, max_output_tokens: 16384, context_length: 128000 },
          { match: 'dall-e-*', modality: 'image', image_sizes: ['1024x1024'], hidden: true, display_name: 'DALL·E' },
        ],
      },
      base,
    ]);
    expect(providers[0]).toMatchObject({
      auth: 'api-key',
      query: { 'api-version': '2024-10-21' },
      headers: { 'HTTP-Referer': 'https://example.org' },
      timeoutMs: 5000,
      retries: 0,
      discover: false,
      modelPrefix: 'azure/',
      fallback: ['openai'],
    });
    expect(providers[0].models[1]).toEqual({
      match: 'dall-e-*',
      modality: 'image',
      image_sizes: ['1024x1024'],
      hidden: true,
      display_name: 'DALL·E',
    });
  });

  it.each([
    [[{ ...base, baseUrl: 'ftp://example.org' }], 'providers[0].baseUrl: must be an http(s) URL'],
    [[base, { ...base, id: 'b', baseUrl: 'not a url' }], 'providers[1].baseUrl: must be an http(s) URL'],
    [[{ ...base, baseUrl: 'https://user:pw@example.org' }], 'providers[0].baseUrl: must not contain credentials'],
    [[{ ...base, baseUrl: 'https://example.org/v1?api-version=1' }], 'providers[0].baseUrl: must not have a query'],
    [[{ ...base, id: 'Open AI' }], 'providers[0].id: required'],
    [[{ ...base, id: undefined }], 'providers[0].id: required'],
    [[{ ...base, kind: 'gemini' }], 'providers[0].kind: must be "openai" or "anthropic"'],
    [[base, base], 'providers[1].id: "openai" is used by an earlier provider'],
    [[{ ...base, apiKey: 'a', apiKeyEnv: 'B' }], 'providers[0]: give apiKey or apiKeyEnv, not both'],
    [
      [{ ...base, apiKeyEnv: 'MISSING_KEY' }],
      'providers[0].apiKeyEnv: the environment variable MISSING_KEY is not set',
    ],
    [[{ ...base, apiKeyEnv: 'not-a-name' }], 'providers[0].apiKeyEnv: must be an environment variable name'],
    [[{ ...base, kind: 'anthropic', auth: 'api-key' }], 'providers[0].auth: only for kind "openai"'],
    [[{ ...base, auth: 'basic' }], 'providers[0].auth: must be "bearer" or "api-key"'],
    [[{ ...base, timeoutMs: 0 }], 'providers[0].timeoutMs: must be an integer from 1 to 3600000'],
    [[{ ...base, retries: 1.5 }], 'providers[0].retries: must be an integer from 0 to 10'],
    [[{ ...base, discover: 'yes' }], 'providers[0].discover: must be true or false'],
    [[{ ...base, query: { v: 1 } }], 'providers[0].query.v: must be a string'],
    [[{ ...base, headers: { 'bad header': 'x' } }], 'providers[0].headers: "bad header" is not a valid header name'],
    [[{ ...base, headers: { 'x-a': 'a\r\nb' } }], 'providers[0].headers.x-a: must not contain line breaks'],
    [[{ ...base, fallback: ['nowhere'] }], 'providers[0].fallback[0]: no provider has the id "nowhere"'],
    [[{ ...base, fallback: ['openai'] }], 'providers[0].fallback[0]: a provider cannot fall back to itself'],
    [[{ ...base, models: [{}] }], 'providers[0].models[0]: give exactly one of id and match'],
    [[{ ...base, models: [{ id: 'a', match: 'b' }] }], 'providers[0].models[0]: give exactly one of id and match'],
    [
      [{ ...base, models: [{ id: 'a', modality: 'audio' }] }],
      'providers[0].models[0].modality: must be "chat" or "image"',
    ],
    [
      [{ ...base, models: [{ id: 'a', context_length: -1 }] }],
      'providers[0].models[0].context_length: must be an integer',
    ],
    [
      [{ ...base, models: [{ id: 'a', image_sizes: ['big'] }] }],
      'providers[0].models[0].image_sizes: must be an array',
    ],
    [[{ ...base, models: [{ id: 'a', vison: true }] }], 'providers[0].models[0].vison: unknown field'],
    [[{ ...base, apikey: 'typo' }], 'providers[0].apikey: unknown field'],
  ])('refuses %j: %s', (providers, message) => {
    expect(() => parse(providers as unknown[])).toThrow(message);
  });

  it('refuses a root that is not {providers: [...]}', () => {
    expect(() => parseProvidersConfig('[]')).toThrow('providers config: must be an object');
    expect(() => parseProvidersConfig('{"providers": {}}')).toThrow('providers: must be an array');
    expect(() => parseProvidersConfig('{"provider": []}')).toThrow('provider: unknown field');
  });

  it('never echoes a key, even from JSON that does not parse', () => {
    const secret = 'sk-very-secret-123';
    for (const json of [
      `{"providers": [{"id": "a", "kind": "openai", "baseUrl": "x", "apiKey": "${secret}"}]}`,
      `{"providers": [{"id": "a", "apiKey": "${secret}", }]}`,
      `{"providers": [{"id": "a", "kind": "openai", "baseUrl": "https://${secret}@x.org"}]}`,
    ]) {
      let message = '';
      try {
        parseProvidersConfig(json, {});
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain(secret);
    }
  });
});

describe('loadProvidersConfig', () => {
  const json = JSON.stringify({ providers: [base] });

  it('reads CHAT_PROVIDERS first, else CHAT_PROVIDERS_FILE, else configures nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'providers-'));
    const file = join(dir, 'providers.json');
    writeFileSync(file, JSON.stringify({ providers: [{ ...base, id: 'from-file' }] }));
    expect(loadProvidersConfig({ CHAT_PROVIDERS: json, CHAT_PROVIDERS_FILE: file }, {}).providers[0].id).toBe('openai');
    expect(loadProvidersConfig({ CHAT_PROVIDERS_FILE: file }, {}).providers[0].id).toBe('from-file');
    expect(loadProvidersConfig({}, {})).toEqual({ providers: [] });
    expect(loadProvidersConfig({ CHAT_PROVIDERS: '  ' }, {})).toEqual({ providers: [] });
  });

  it('says which setting is wrong', () => {
    expect(() => loadProvidersConfig({ CHAT_PROVIDERS: '{' }, {})).toThrow(
      'CHAT_PROVIDERS: providers config: not valid JSON',
    );
    expect(() => loadProvidersConfig({ CHAT_PROVIDERS_FILE: '/nonexistent/providers.json' }, {})).toThrow(
      'CHAT_PROVIDERS_FILE: cannot read /nonexistent/providers.json (ENOENT)',
    );
    // A configuration error, so the process stops with exit code 2 naming the variable.
    expect(() => loadProvidersConfig({ CHAT_PROVIDERS: '{' }, {})).toThrow(ConfigError);
    expect(() => loadProvidersConfig({ CHAT_PROVIDERS: '{"providers":[{"id":"x"}]}' }, {})).toThrow(ConfigError);
    expect(() => loadProvidersConfig({ CHAT_PROVIDERS_FILE: '/nonexistent/providers.json' }, {})).toThrow(ConfigError);
  });
});
