import { readFileSync } from 'node:fs';
import { ConfigError } from '@kw/platform-config';

export type ProviderKind = 'openai' | 'anthropic';

/** Operator metadata for the models one entry names (`id`) or matches (`match`, `*` globs). */
export interface ProviderModelConfig {
  id?: string;
  match?: string;
  display_name?: string;
  modality?: 'chat' | 'image';
  vision?: boolean;
  reasoning?: boolean;
  max_output_tokens?: number;
  context_length?: number;
  family?: string;
  image_sizes?: string[];
  /** Not listed in the catalog; still callable by its id. */
  hidden?: boolean;
}

/** One provider, validated, defaults applied, and its key resolved (apiKeyEnv read). */
export interface ProviderConfig {
  id: string;
  kind: ProviderKind;
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey?: string;
  /** Where the key goes for kind openai: `Authorization: Bearer` or an `api-key` header (Azure). */
  auth: 'bearer' | 'api-key';
  query: Record<string, string>;
  headers: Record<string, string>;
  timeoutMs: number;
  retries: number;
  discover: boolean;
  modelPrefix: string;
  fallback: string[];
  models: ProviderModelConfig[];
}

export interface ProvidersConfig {
  providers: ProviderConfig[];
}

export const PROVIDER_DEFAULTS = {
  timeoutMs: 60_000,
  retries: 2,
  discover: true,
  auth: 'bearer',
  modelPrefix: '',
} as const;

/** A provider entry with every default, for providers injected without configuration (tests). */
export function defaultProviderConfig(id: string, kind: ProviderKind, baseUrl = 'http://127.0.0.1'): ProviderConfig {
  return {
    id,
    kind,
    baseUrl,
    auth: PROVIDER_DEFAULTS.auth,
    query: {},
    headers: {},
    timeoutMs: PROVIDER_DEFAULTS.timeoutMs,
    retries: PROVIDER_DEFAULTS.retries,
    discover: PROVIDER_DEFAULTS.discover,
    modelPrefix: PROVIDER_DEFAULTS.modelPrefix,
    fallback: [],
    models: [],
  };
}

type Env = Record<string, string | undefined>;

const PROVIDER_FIELDS = new Set([
  'id',
  'kind',
  'baseUrl',
  'apiKey',
  'apiKeyEnv',
  'auth',
  'query',
  'headers',
  'timeoutMs',
  'retries',
  'discover',
  'modelPrefix',
  'fallback',
  'models',
]);
const MODEL_FIELDS = new Set([
  'id',
  'match',
  'display_name',
  'modality',
  'vision',
  'reasoning',
  'max_output_tokens',
  'context_length',
  'family',
  'image_sizes',
  'hidden',
]);
const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const IMAGE_SIZE = /^(\d{1,5}x\d{1,5}|auto)$/;

/**
 * Parses and validates the operator's provider configuration (CHAT_PROVIDERS). Errors name the
 * path (`providers[1].baseUrl: must be an http(s) URL`) and never echo a value: keys, and URLs
 * or headers that may carry secrets, stay out of logs.
 */
export function parseProvidersConfig(json: string, env: Env = process.env): ProvidersConfig {
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch (err) {
    // The parser's own message may quote the text around the error, key included: only the position is kept.
    const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new Error(`providers config: not valid JSON${position ? ` (at position ${position})` : ''}`);
  }
  if (!isObject(root)) throw new Error('providers config: must be an object with a "providers" array');
  for (const key of Object.keys(root)) if (key !== 'providers') throw new Error(`${fieldPath('', key)}: unknown field`);
  if (!Array.isArray(root.providers)) throw new Error('providers: must be an array');

  const providers = root.providers.map((entry, i) => parseProvider(entry, `providers[${i}]`, env));
  const ids = new Set<string>();
  providers.forEach((p, i) => {
    if (ids.has(p.id)) throw new Error(`providers[${i}].id: "${p.id}" is used by an earlier provider`);
    ids.add(p.id);
  });
  providers.forEach((p, i) =>
    p.fallback.forEach((target, j) => {
      const at = `providers[${i}].fallback[${j}]`;
      if (target === p.id) throw new Error(`${at}: a provider cannot fall back to itself`);
      if (!ids.has(target)) throw new Error(`${at}: no provider has the id "${target}"`);
      if (p.fallback.indexOf(target) !== j) throw new Error(`${at}: "${target}" is listed twice`);
    }),
  );
  return { providers };
}

/**
 * The configuration from the platform settings: CHAT_PROVIDERS (JSON) or else the file named
 * by CHAT_PROVIDERS_FILE (a mounted secret). Neither set: no provider.
 */
export function loadProvidersConfig(
  settings: { CHAT_PROVIDERS?: string; CHAT_PROVIDERS_FILE?: string },
  env: Env = process.env,
): ProvidersConfig {
  if (settings.CHAT_PROVIDERS?.trim())
    return withContext('CHAT_PROVIDERS', () => parseProvidersConfig(settings.CHAT_PROVIDERS!, env));
  const file = settings.CHAT_PROVIDERS_FILE?.trim();
  if (!file) return { providers: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([`CHAT_PROVIDERS_FILE: cannot read ${file}${code ? ` (${code})` : ''}`]);
  }
  return withContext(`CHAT_PROVIDERS_FILE (${file})`, () => parseProvidersConfig(text, env));
}

function withContext<T>(context: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    // A configuration error: the start stops with exit code 2, naming the variable (docs/configuration.md).
    throw new ConfigError([`${context}: ${(err as Error).message}`]);
  }
}

function parseProvider(entry: unknown, at: string, env: Env): ProviderConfig {
  if (!isObject(entry)) throw new Error(`${at}: must be an object`);
  for (const key of Object.keys(entry))
    if (!PROVIDER_FIELDS.has(key)) throw new Error(`${fieldPath(at, key)}: unknown field`);

  const id = entry.id;
  if (typeof id !== 'string' || !PROVIDER_ID.test(id))
    throw new Error(`${at}.id: required, lower-case letters, digits, "_" and "-", starting with a letter or digit`);
  const kind = entry.kind;
  if (kind !== 'openai' && kind !== 'anthropic') throw new Error(`${at}.kind: must be "openai" or "anthropic"`);

  const config = defaultProviderConfig(id, kind, parseBaseUrl(entry.baseUrl, `${at}.baseUrl`));
  config.apiKey = parseKey(entry, at, env);
  if (entry.auth !== undefined) {
    if (kind !== 'openai') throw new Error(`${at}.auth: only for kind "openai"`);
    if (entry.auth !== 'bearer' && entry.auth !== 'api-key')
      throw new Error(`${at}.auth: must be "bearer" or "api-key"`);
    config.auth = entry.auth;
  }
  if (entry.query !== undefined) config.query = stringMap(entry.query, `${at}.query`);
  if (entry.headers !== undefined) {
    config.headers = stringMap(entry.headers, `${at}.headers`);
    for (const [name, value] of Object.entries(config.headers)) {
      if (!HEADER_NAME.test(name)) throw new Error(`${at}.headers: "${name}" is not a valid header name`);
      if (/[\r\n\0]/.test(value)) throw new Error(`${at}.headers.${name}: must not contain line breaks`);
    }
  }
  if (entry.timeoutMs !== undefined) config.timeoutMs = integer(entry.timeoutMs, `${at}.timeoutMs`, 1, 3_600_000);
  if (entry.retries !== undefined) config.retries = integer(entry.retries, `${at}.retries`, 0, 10);
  if (entry.discover !== undefined) config.discover = boolean(entry.discover, `${at}.discover`);
  if (entry.modelPrefix !== undefined) {
    if (typeof entry.modelPrefix !== 'string' || /\s/.test(entry.modelPrefix))
      throw new Error(`${at}.modelPrefix: must be a string without spaces`);
    config.modelPrefix = entry.modelPrefix;
  }
  if (entry.fallback !== undefined) {
    if (!Array.isArray(entry.fallback)) throw new Error(`${at}.fallback: must be an array of provider ids`);
    config.fallback = entry.fallback.map((f, j) => {
      if (typeof f !== 'string' || !f) throw new Error(`${at}.fallback[${j}]: must be a provider id`);
      return f;
    });
  }
  if (entry.models !== undefined) {
    if (!Array.isArray(entry.models)) throw new Error(`${at}.models: must be an array`);
    config.models = entry.models.map((m, j) => parseModel(m, `${at}.models[${j}]`));
  }
  return config;
}

function parseBaseUrl(value: unknown, at: string): string {
  let url: URL;
  try {
    if (typeof value !== 'string') throw new Error();
    url = new URL(value);
  } catch {
    throw new Error(`${at}: must be an http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${at}: must be an http(s) URL`);
  if (url.username || url.password) throw new Error(`${at}: must not contain credentials (use apiKey or headers)`);
  if (url.search || url.hash) throw new Error(`${at}: must not have a query or fragment (use query)`);
  return url.toString().replace(/\/+$/, '');
}

function parseKey(entry: Record<string, unknown>, at: string, env: Env): string | undefined {
  if (entry.apiKey !== undefined && entry.apiKeyEnv !== undefined)
    throw new Error(`${at}: give apiKey or apiKeyEnv, not both`);
  if (entry.apiKey !== undefined) {
    if (typeof entry.apiKey !== 'string' || !entry.apiKey.trim())
      throw new Error(`${at}.apiKey: must be a non-empty string`);
    return entry.apiKey.trim();
  }
  if (entry.apiKeyEnv !== undefined) {
    if (typeof entry.apiKeyEnv !== 'string' || !ENV_NAME.test(entry.apiKeyEnv))
      throw new Error(`${at}.apiKeyEnv: must be an environment variable name`);
    const key = env[entry.apiKeyEnv]?.trim();
    if (!key) throw new Error(`${at}.apiKeyEnv: the environment variable ${entry.apiKeyEnv} is not set`);
    return key;
  }
  return undefined; // a local server (vLLM, Ollama) or bring-your-own-key only
}

function parseModel(entry: unknown, at: string): ProviderModelConfig {
  if (!isObject(entry)) throw new Error(`${at}: must be an object`);
  for (const key of Object.keys(entry))
    if (!MODEL_FIELDS.has(key)) throw new Error(`${fieldPath(at, key)}: unknown field`);
  if ((entry.id === undefined) === (entry.match === undefined))
    throw new Error(`${at}: give exactly one of id and match`);
  const model: ProviderModelConfig = {};
  if (entry.id !== undefined) model.id = nonEmpty(entry.id, `${at}.id`);
  if (entry.match !== undefined) model.match = nonEmpty(entry.match, `${at}.match`);
  if (entry.display_name !== undefined) model.display_name = nonEmpty(entry.display_name, `${at}.display_name`);
  if (entry.modality !== undefined) {
    if (entry.modality !== 'chat' && entry.modality !== 'image')
      throw new Error(`${at}.modality: must be "chat" or "image"`);
    model.modality = entry.modality;
  }
  if (entry.vision !== undefined) model.vision = boolean(entry.vision, `${at}.vision`);
  if (entry.reasoning !== undefined) model.reasoning = boolean(entry.reasoning, `${at}.reasoning`);
  if (entry.hidden !== undefined) model.hidden = boolean(entry.hidden, `${at}.hidden`);
  if (entry.max_output_tokens !== undefined)
    model.max_output_tokens = integer(entry.max_output_tokens, `${at}.max_output_tokens`, 1, 100_000_000);
  if (entry.context_length !== undefined)
    model.context_length = integer(entry.context_length, `${at}.context_length`, 1, 100_000_000);
  if (entry.family !== undefined) model.family = nonEmpty(entry.family, `${at}.family`);
  if (entry.image_sizes !== undefined) {
    if (
      !Array.isArray(entry.image_sizes) ||
      entry.image_sizes.some((s) => typeof s !== 'string' || !IMAGE_SIZE.test(s))
    )
      throw new Error(`${at}.image_sizes: must be an array of sizes like "1024x1024"`);
    model.image_sizes = entry.image_sizes as string[];
  }
  return model;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldPath(at: string, key: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key.slice(0, 40));
  return at ? `${at}.${name}` : name;
}

function nonEmpty(value: unknown, at: string): string {
  if (typeof value !== 'string' || !value.trim()) throw new Error(`${at}: must be a non-empty string`);
  return value;
}

function boolean(value: unknown, at: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${at}: must be true or false`);
  return value;
}

function integer(value: unknown, at: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new Error(`${at}: must be an integer from ${min} to ${max}`);
  return value;
}

function stringMap(value: unknown, at: string): Record<string, string> {
  if (!isObject(value)) throw new Error(`${at}: must be an object of strings`);
  for (const [k, v] of Object.entries(value))
    if (typeof v !== 'string') throw new Error(`${fieldPath(at, k)}: must be a string`);
  return { ...(value as Record<string, string>) };
}
