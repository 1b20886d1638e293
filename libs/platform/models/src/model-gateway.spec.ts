import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicStandIn } from '../../../../test/support/stand-ins/anthropic-stand-in.js';
import { startOpenAiStandIn, TINY_PNG_B64, type StandIn } from '../../../../test/support/stand-ins/openai-stand-in.js';
import { ModelGateway, type ModelGatewayOptions } from './model-gateway.js';
import type { ModelInfo } from './model-info.js';
import { parseProvidersConfig } from './providers-config.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from './wire.js';

let openai: StandIn;
let claude: StandIn;
let second: StandIn;
const gateways: ModelGateway[] = [];
let warnings: Array<{ obj: object; msg: string }>;
let sleeps: number[];

/** A gateway over the three stand-ins; `patch` edits the provider entries. */
function gateway(
  patch: (providers: Array<Record<string, unknown>>) => void = () => {},
  options: ModelGatewayOptions = {},
): ModelGateway {
  const providers: Array<Record<string, unknown>> = [
    {
      id: 'openai',
      kind: 'openai',
      baseUrl: openai.url,
      apiKey: 'sk-openai',
      retries: 2,
      models: [
        { id: 'gpt-4o', display_name: 'GPT-4o', vision: true, max_output_tokens: 16384, context_length: 128000 },
        { match: 'gpt-4o*', context_length: 64000, reasoning: true },
        { match: 'text-embedding-*', hidden: true },
        { id: 'declared-only' },
      ],
    },
    {
      id: 'claude',
      kind: 'anthropic',
      baseUrl: claude.url,
      apiKey: 'sk-claude',
      modelPrefix: 'anthropic/',
      retries: 0,
    },
    {
      id: 'second',
      kind: 'openai',
      baseUrl: second.url,
      apiKey: 'sk-second',
      discover: false,
      retries: 0,
      models: [{ id: 'gpt-4o' }, { id: 'sonnet-via-router', family: 'claude-sonnet-4-5' }],
    },
  ];
  patch(providers);
  const g = new ModelGateway(parseProvidersConfig(JSON.stringify({ providers }), {}), {
    logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  gateways.push(g);
  return g;
}

function model(g: ModelGateway, id: string): ModelInfo {
  const found = g.find(id);
  if (!found) throw new Error(`no model ${id}`);
  return found;
}

async function failure(promise: Promise<unknown>): Promise<Error & { status?: number; code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const all: ChatCompletionChunk[] = [];
  for await (const c of chunks) all.push(c);
  return all;
}

const chat = (model: string): ChatCompletionRequest => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

beforeAll(async () => {
  [openai, claude, second] = await Promise.all([
    startOpenAiStandIn({
      models: [
        { id: 'gpt-4o' },
        { id: 'gpt-image-1' },
        { id: 'gpt-4o-mini', context_length: 100000, top_provider: { max_completion_tokens: 12345 } },
        { id: 'text-embedding-3-small' },
        { id: 'dall-e-3' },
      ],
    }),
    startAnthropicStandIn(),
    startOpenAiStandIn(),
  ]);
});
afterEach(() => {
  for (const s of [openai, claude, second]) {
    s.setMode('ok');
    s.requests.length = 0;
  }
  warnings = [];
  sleeps = [];
});
beforeAll(() => {
  warnings = [];
  sleeps = [];
});
afterAll(async () => {
  for (const g of gateways) g.close();
  await Promise.all([openai, claude, second].map((s) => s.close()));
});

describe('ModelGateway catalog', () => {
  it('lists declared models before discovery, then merges discovered ones with operator and upstream metadata', async () => {
    const g = gateway();
    expect(g.configured).toBe(true);
    expect(g.models().map((m) => `${m.provider}:${m.id}`)).toEqual([
      'openai:declared-only',
      'openai:gpt-4o',
      'second:sonnet-via-router',
    ]);

    await g.refresh();
    expect(g.models().map((m) => m.id)).toEqual([
      'anthropic/claude-haiku-4-5',
      'anthropic/claude-sonnet-4-5',
      'dall-e-3',
      'declared-only',
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-image-1',
      'sonnet-via-router',
    ]);
    expect(second.requests).toEqual([]); // discover: false

    // The exact id entry wins over the glob, and the provider listed first wins the public id.
    expect(model(g, 'gpt-4o')).toEqual({
      id: 'gpt-4o',
      owned_by: 'openai',
      display_name: 'GPT-4o',
      modality: 'chat',
      capabilities: { vision: true, reasoning: false, max_output_tokens: 16384, context_length: 128000 },
      provider: 'openai',
      upstreamId: 'gpt-4o',
      family: 'gpt-4o',
    });
    // Glob entry over upstream metadata over defaults.
    expect(model(g, 'gpt-4o-mini').capabilities).toEqual({
      vision: false,
      reasoning: true,
      max_output_tokens: 12345,
      context_length: 64000,
    });
    expect(model(g, 'declared-only')).toMatchObject({
      display_name: 'declared-only',
      modality: 'chat',
      capabilities: { vision: false, reasoning: false, max_output_tokens: 4096, context_length: 8192 },
      family: 'declared-only',
    });
    expect(model(g, 'anthropic/claude-sonnet-4-5')).toMatchObject({
      display_name: 'Claude Sonnet 4.5',
      provider: 'claude',
      upstreamId: 'claude-sonnet-4-5',
      family: 'claude-sonnet-4-5',
      capabilities: { vision: true },
    });
    expect(model(g, 'dall-e-3').modality).toBe('image');
    // Hidden: left out of the list, still found by id.
    expect(g.find('text-embedding-3-small')).toMatchObject({ provider: 'openai' });
    expect(g.find('nothing')).toBeUndefined();
  });

  it('keeps a provider’s previous list when its discovery fails, and logs it', async () => {
    const g = gateway();
    await g.refresh();
    openai.setMode('status-500');
    await g.refresh();
    expect(g.find('gpt-4o-mini')).toBeDefined();
    expect(warnings).toEqual([
      {
        obj: { provider: 'openai', error: expect.stringContaining('HTTP 500') },
        msg: 'Model discovery failed; the previous model list is kept',
      },
    ]);
    // A provider never discovered still lists its declared models.
    const fresh = gateway();
    await fresh.refresh();
    expect(fresh.models().map((m) => m.id)).toContain('declared-only');
    expect(fresh.find('gpt-4o-mini')).toBeUndefined();
  });

  it('is not configured without providers', () => {
    const g = new ModelGateway({ providers: [] });
    expect(g.configured).toBe(false);
    expect(g.models()).toEqual([]);
  });
});

describe('ModelGateway calls', () => {
  it('completes with the upstream id and says who served', async () => {
    const g = gateway();
    await g.refresh();
    const { completion, served } = await g.complete(
      model(g, 'anthropic/claude-sonnet-4-5'),
      chat('anthropic/claude-sonnet-4-5'),
    );
    expect(completion.choices[0].message.content).toBe('echo: Hi');
    expect(claude.requests.find((r) => r.method === 'POST')?.body.model).toBe('claude-sonnet-4-5');
    expect(served).toEqual({
      provider: 'claude',
      upstreamModel: 'claude-sonnet-4-5',
      credential: 'operator',
      attempts: 1,
    });
  });

  it('retries 500 then succeeds, with exponential backoff and jitter', async () => {
    const g = gateway();
    openai.setMode('status-500', { times: 2 });
    const { served } = await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'));
    expect(served).toMatchObject({ provider: 'openai', attempts: 3 });
    expect(openai.requests).toHaveLength(3);
    expect(sleeps).toEqual([150, 300]); // 200·2^n, half fixed, half jitter (random 0.5)
  });

  it('honours Retry-After on 429, up to 10 s', async () => {
    const g = gateway();
    openai.setMode('status-429', { times: 1, retryAfterSeconds: 3 });
    expect((await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'))).served.attempts).toBe(2);
    openai.setMode('status-429', { times: 1, retryAfterSeconds: 60 });
    await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'));
    expect(sleeps).toEqual([3000, 10_000]);
  });

  it('neither retries nor falls back when the provider refuses the request (400)', async () => {
    const g = gateway((p) => (p[0].fallback = ['second']));
    openai.setMode('status-400');
    const err = await failure(g.complete(model(g, 'gpt-4o'), chat('gpt-4o')));
    expect(err).toMatchObject({ status: 400, code: 'UPSTREAM_REJECTED' });
    expect(openai.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(0);
    expect(sleeps).toEqual([]);
  });

  it('falls back, after the retries, to the next provider serving the same family', async () => {
    const g = gateway((p) => {
      p[0].fallback = ['claude', 'second'];
      p[0].retries = 1;
      p[1].fallback = ['second'];
    });
    await g.refresh();
    openai.setMode('status-500');
    const { completion, served } = await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'));
    expect(completion.choices[0].message.content).toBe('echo: Hi');
    // claude serves no gpt-4o family: skipped.
    expect(served).toEqual({ provider: 'second', upstreamModel: 'gpt-4o', credential: 'operator', attempts: 3 });
    expect(openai.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(claude.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(second.requests[0].headers.authorization).toBe('Bearer sk-second');
    expect(warnings.map((w) => w.msg)).toContain('Model provider failed; trying the fallback provider');

    // A family named by the operator bridges different upstream ids.
    claude.setMode('status-500');
    const bridged = await g.stream(model(g, 'anthropic/claude-sonnet-4-5'), chat('anthropic/claude-sonnet-4-5'));
    expect(bridged.served).toMatchObject({ provider: 'second', upstreamModel: 'sonnet-via-router', attempts: 2 });
    expect(second.requests[1].body.model).toBe('sonnet-via-router');
    await collect(bridged.chunks);

    // Every provider failing: the last error.
    second.setMode('status-500');
    expect(await failure(g.complete(model(g, 'gpt-4o'), chat('gpt-4o')))).toMatchObject({
      status: 502,
      code: 'UPSTREAM_ERROR',
    });
  });

  it('streams after retrying failures before the first byte, and never retries once the stream began', async () => {
    const g = gateway();
    openai.setMode('status-500', { times: 1 });
    const { chunks, served } = await g.stream(model(g, 'gpt-4o'), chat('gpt-4o'));
    expect(served.attempts).toBe(2);
    const all = await collect(chunks);
    expect(all.at(-1)?.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
    expect(openai.requests[1].body).toMatchObject({ model: 'gpt-4o', stream: true });

    openai.requests.length = 0;
    openai.setMode('close-mid-stream');
    const broken = await g.stream(model(g, 'gpt-4o'), chat('gpt-4o'));
    expect(await failure(collect(broken.chunks))).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(openai.requests).toHaveLength(1);
  });

  it('logs what an error event said with the key sent scrubbed, operator or BYOK, OpenAI or Anthropic', async () => {
    const keys = { openai: 'sk-openai-operator-0123456789abcdef', claude: 'sk-ant-operator-0123456789abcdef' };
    const g = gateway((p) => {
      p[0].apiKey = keys.openai;
      p[1].apiKey = keys.claude;
    });
    const userKey = 'sk-user-own-vault-fedcba9876543210';
    const byok = async () => ({ apiKey: userKey, credential: 'byok:cred-1' });
    await g.refresh();
    openai.requests.length = claude.requests.length = 0;
    openai.setMode('error-event');
    claude.setMode('error-event');
    for (const [id, options, key] of [
      ['gpt-4o', {}, keys.openai],
      ['gpt-4o', { credentialFor: byok }, userKey],
      ['anthropic/claude-sonnet-4-5', {}, keys.claude],
      ['anthropic/claude-sonnet-4-5', { credentialFor: byok }, userKey],
    ] as const) {
      warnings = [];
      const { chunks } = await g.stream(model(g, id), chat(id), options);
      const err = await failure(collect(chunks));
      expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
      expect(warnings).toEqual([
        {
          obj: expect.objectContaining({ providerSaid: expect.stringMatching(/Overloaded; key (Bearer )?\*\*\*$/i) }),
          msg: 'Model provider failed',
        },
      ]);
      // Neither the log line nor the error (whatever a logger may serialise of it) holds the key.
      const everything = JSON.stringify([warnings, { ...err, message: err.message }]);
      expect(everything).not.toContain(key.slice(0, 12));
      expect(everything).not.toContain(key.slice(-12));
    }
    // The stand-ins did receive (and echo) each key.
    expect(openai.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${keys.openai}`, `Bearer ${userKey}`]);
    expect(claude.requests.map((r) => r.headers['x-api-key'])).toEqual([keys.claude, userKey]);
  });

  it('answers 502 when the provider does not answer in time', async () => {
    const g = gateway((p) => {
      p[0].timeoutMs = 100;
      p[0].retries = 0;
    });
    openai.setMode('hang');
    const err = await failure(g.complete(model(g, 'gpt-4o'), chat('gpt-4o')));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toContain('no answer within 100 ms');
  });

  it('stops at once when the signal aborts: no retry, the upstream request is closed', async () => {
    const g = gateway();
    const before = openai.aborted();
    openai.setMode('hang');
    const controller = new AbortController();
    const pending = g.complete(model(g, 'gpt-4o'), chat('gpt-4o'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).name).toBe('AbortError');
    for (let i = 0; i < 100 && openai.aborted() === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(openai.aborted()).toBe(before + 1);
    expect(openai.requests).toHaveLength(1);

    // Aborted while waiting to retry.
    const waiting = gateway(() => {}, { sleep: () => new Promise(() => {}) });
    openai.setMode('status-500');
    const backoff = new AbortController();
    const retrying = waiting.complete(model(waiting, 'gpt-4o'), chat('gpt-4o'), { signal: backoff.signal });
    setTimeout(() => backoff.abort(), 50);
    expect((await failure(retrying)).name).toBe('AbortError');
    expect(openai.requests).toHaveLength(2);
  });

  it('uses the key credentialFor returns (BYOK) and reports that credential', async () => {
    const g = gateway((p) => (p[0].fallback = ['second']));
    const credentialFor = async (provider: string) =>
      provider === 'openai' ? { apiKey: 'sk-user-own', credential: 'byok:cred-1' } : undefined;
    const { served } = await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'), { credentialFor });
    expect(served.credential).toBe('byok:cred-1');
    expect(openai.requests[0].headers.authorization).toBe('Bearer sk-user-own');

    // The fallback provider has no key of the caller's: the operator's.
    openai.setMode('status-500');
    const fallback = await g.complete(model(g, 'gpt-4o'), chat('gpt-4o'), { credentialFor });
    expect(fallback.served).toMatchObject({ provider: 'second', credential: 'operator' });
    expect(second.requests[0].headers.authorization).toBe('Bearer sk-second');
  });

  it('generates images with image models only', async () => {
    const g = gateway((p) => {
      (p[1].models as unknown[]) = [{ id: 'claude-painter', modality: 'image' }];
    });
    await g.refresh();
    const { result, served } = await g.generateImage(model(g, 'dall-e-3'), { prompt: 'a fox' });
    expect(result.data[0].b64_json).toBe(TINY_PNG_B64);
    expect(served).toMatchObject({ provider: 'openai', upstreamModel: 'dall-e-3', attempts: 1 });
    expect(openai.requests.at(-1)?.body).toMatchObject({ model: 'dall-e-3', response_format: 'b64_json', n: 1 });

    expect(await failure(g.generateImage(model(g, 'gpt-4o'), { prompt: 'a fox' }))).toMatchObject({
      status: 400,
      message: 'The model "gpt-4o" does not generate images',
    });
    expect(await failure(g.generateImage(model(g, 'anthropic/claude-painter'), { prompt: 'a fox' }))).toMatchObject({
      status: 400,
      message: 'The provider of the model "anthropic/claude-painter" does not generate images',
    });
  });

  it('answers MODEL_NOT_FOUND for a model of no configured provider', async () => {
    const g = gateway();
    const stranger = { ...model(g, 'gpt-4o'), provider: 'elsewhere' };
    expect(await failure(g.complete(stranger, chat('gpt-4o')))).toMatchObject({
      status: 404,
      code: 'MODEL_NOT_FOUND',
      param: 'model',
    });
  });
});
