import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  STAND_IN_ERROR_MESSAGES,
  STAND_IN_STREAM_ERROR,
  startOpenAiStandIn,
  TINY_PNG_B64,
  type StandIn,
} from '../../../../test/support/stand-ins/openai-stand-in.js';
import { AppError } from '@kw/platform-errors';
import type { UpstreamError } from './model-errors.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';
import { defaultProviderConfig, type ProviderConfig } from './providers-config.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from './wire.js';

let standIn: StandIn;
const providers: OpenAiCompatibleProvider[] = [];

function provider(overrides: Partial<ProviderConfig> = {}): OpenAiCompatibleProvider {
  const p = new OpenAiCompatibleProvider({
    ...defaultProviderConfig('openai', 'openai', standIn.url),
    apiKey: 'sk-operator',
    ...overrides,
  });
  providers.push(p);
  return p;
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const all: ChatCompletionChunk[] = [];
  for await (const c of chunks) all.push(c);
  return all;
}

async function failure(promise: Promise<unknown>): Promise<AppError & { name: string }> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a failure');
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
};

const chat: ChatCompletionRequest = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] };
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
};

beforeAll(async () => {
  standIn = await startOpenAiStandIn({
    models: [
      { id: 'gpt-4o', object: 'model', owned_by: 'system' },
      {
        id: 'anthropic/claude-sonnet-4.5',
        name: 'Anthropic: Claude Sonnet 4.5',
        context_length: 1000000,
        architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
        top_provider: { max_completion_tokens: 64000 },
        supported_parameters: ['tools', 'reasoning'],
      },
      { id: 'meta-llama/Llama-3.1-8B-Instruct', object: 'model', max_model_len: 131072 },
      { id: 'dall-e-3', object: 'model' },
      { object: 'model' },
    ],
  });
});
afterEach(() => {
  standIn.setMode('ok');
  standIn.requests.length = 0;
});
afterAll(async () => {
  for (const p of providers) p.close();
  await standIn.close();
});

describe('OpenAI-compatible provider', () => {
  it('lists models with the metadata OpenRouter and vLLM add', async () => {
    expect(await provider().listModels()).toEqual([
      { id: 'gpt-4o' },
      {
        id: 'anthropic/claude-sonnet-4.5',
        display_name: 'Anthropic: Claude Sonnet 4.5',
        context_length: 1000000,
        max_output_tokens: 64000,
        vision: true,
        reasoning: true,
      },
      { id: 'meta-llama/Llama-3.1-8B-Instruct', context_length: 131072 },
      { id: 'dall-e-3', modality: 'image' },
    ]);
    expect(standIn.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(standIn.requests[0].headers.authorization).toBe('Bearer sk-operator');
  });

  it('completes without streaming, passing the request through', async () => {
    const completion = await provider().complete({ ...chat, temperature: 0.2, stream: true });
    expect(completion).toEqual({
      id: 'chatcmpl-standin-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'echo: Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
    expect(standIn.requests[0].body).toEqual({ ...chat, temperature: 0.2, stream: false });
    expect(standIn.requests[0].headers['content-type']).toBe('application/json');
  });

  it('streams text chunks as sent, asks for usage, and ends with the usage chunk', async () => {
    const chunks = await collect(await provider().stream(chat));
    expect(standIn.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: Hello there');
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
  });

  it('relays tool calls and their results, streamed and not', async () => {
    const p = provider();
    const ask: ChatCompletionRequest = {
      ...chat,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
      tool_choice: 'auto',
    };
    const completion = await p.complete(ask);
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_standin_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"text":"Weather in Paris?"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });

    const chunks = await collect(await p.stream(ask));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual({
      index: 0,
      id: 'call_standin_1',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(deltas.map((d) => d.function?.arguments ?? '').join('')).toBe('{"text":"Weather in Paris?"}');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');

    const followUp = await p.complete({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: null, tool_calls: completion.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: 'call_standin_1', content: 'Sunny, 24 °C' },
      ],
    });
    expect(followUp.choices[0].message.content).toBe('tool said: Sunny, 24 °C');
  });

  it('invents no usage when the provider reports none (the caller estimates it)', async () => {
    const quiet = await startOpenAiStandIn({ streamUsage: false });
    try {
      const chunks = await collect(await provider({ baseUrl: quiet.url }).stream(chat));
      expect(chunks.filter((c) => c.usage)).toEqual([]);
      expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
      quiet.setMode('no-usage', { times: 1 });
      expect((await provider({ baseUrl: quiet.url }).complete(chat)).usage).toBeUndefined();
    } finally {
      await quiet.close();
    }
  });

  it('generates an image as base64', async () => {
    const result = await provider().generateImage('dall-e-3', {
      prompt: 'a red fox',
      size: '1024x1024',
      style: 'vivid',
    });
    expect(result).toEqual({
      created: 1700000000,
      data: [{ b64_json: TINY_PNG_B64, revised_prompt: 'revised: a red fox' }],
    });
    expect(standIn.requests[0].body).toEqual({
      model: 'dall-e-3',
      prompt: 'a red fox',
      n: 1,
      size: '1024x1024',
      style: 'vivid',
      response_format: 'b64_json',
    });
    await provider().generateImage('gpt-image-1', { prompt: 'a fox' });
    expect(standIn.requests[1].body).toEqual({ model: 'gpt-image-1', prompt: 'a fox', n: 1 });
  });

  it('sends the Azure api-key header, the configured query and headers; a BYOK key replaces the operator key', async () => {
    const azure = provider({
      auth: 'api-key',
      query: { 'api-version': '2024-10-21' },
      headers: { 'HTTP-Referer': 'https://example.org' },
    });
    await azure.complete(chat);
    const sent = standIn.requests[0];
    expect(sent.headers['api-key']).toBe('sk-operator');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.query).toEqual({ 'api-version': '2024-10-21' });
    expect(sent.headers['http-referer']).toBe('https://example.org');

    await collect(await provider().stream(chat, { apiKey: 'sk-user-own' }));
    expect(standIn.requests[1].headers.authorization).toBe('Bearer sk-user-own');
    await provider({ apiKey: undefined }).complete(chat);
    expect(standIn.requests[2].headers.authorization).toBeUndefined();
  });

  it('reuses one kept-alive connection for consecutive calls', async () => {
    const p = provider();
    await p.complete(chat);
    await collect(await p.stream(chat));
    await p.complete(chat);
    expect(new Set(standIn.requests.map((r) => r.remotePort)).size).toBe(1);
  });

  it('answers 502 UPSTREAM_ERROR on a 5xx and 429 (retryable, Retry-After kept), 400 UPSTREAM_REJECTED on a 400', async () => {
    const p = provider();
    standIn.setMode('status-500');
    const err500 = await failure(p.complete(chat));
    expect(err500).toBeInstanceOf(AppError);
    expect(err500).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR', retryable: true, upstreamStatus: 500 });
    // The provider's words are logged, never answered (docs/chat.md: no upstream body).
    expect(err500.message).toBe('The model provider "openai" failed: HTTP 500');
    expect((err500 as UpstreamError).providerSaid).toBe(STAND_IN_ERROR_MESSAGES[500]);

    standIn.setMode('status-429', { retryAfterSeconds: 3 });
    expect(await failure(p.stream(chat))).toMatchObject({ status: 502, retryable: true, retryAfterMs: 3000 });

    standIn.setMode('status-400');
    const err400 = await failure(p.complete(chat));
    expect(err400).toMatchObject({ status: 400, code: 'UPSTREAM_REJECTED', retryable: false });
    expect(err400.message).toContain("Invalid value for 'temperature'");

    standIn.setMode('status-401');
    expect(await failure(p.complete(chat, { apiKey: 'sk-bad' }))).toMatchObject({
      status: 502,
      retryable: false,
      upstreamStatus: 401,
    });
  });

  it('times out waiting for the answer (502) and when a stream stalls', async () => {
    const p = provider({ timeoutMs: 150 });
    standIn.setMode('hang');
    const started = Date.now();
    const err = await failure(p.complete(chat));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR', retryable: true });
    expect(err.message).toContain('no answer within 150 ms');
    expect(Date.now() - started).toBeLessThan(2000);

    standIn.setMode('stall-mid-stream');
    const chunks = await p.stream(chat);
    const stalled = await failure(collect(chunks));
    expect(stalled).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(stalled.message).toContain('no data for 150 ms');
  });

  it('aborts through the signal: the upstream request is closed at once', async () => {
    const p = provider();
    const before = standIn.aborted();
    standIn.setMode('hang');
    const controller = new AbortController();
    const pending = p.complete(chat, { signal: controller.signal });
    await until(() => standIn.requests.length === 1);
    controller.abort();
    expect((await failure(pending)).name).toBe('AbortError');
    await until(() => standIn.aborted() === before + 1);

    standIn.setMode('stall-mid-stream');
    const midStream = new AbortController();
    const chunks = await p.stream(chat, { signal: midStream.signal });
    const iterator = chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).value.choices[0].delta.role).toBe('assistant');
    const next = iterator.next();
    midStream.abort();
    expect((await failure(next)).name).toBe('AbortError');
    await until(() => standIn.aborted() === before + 2);

    const already = new AbortController();
    already.abort();
    expect((await failure(p.complete(chat, { signal: already.signal }))).name).toBe('AbortError');
  });

  it('releases the connection when the caller stops reading a stream', async () => {
    const p = provider();
    const before = standIn.aborted();
    standIn.setMode('stall-mid-stream');
    const chunks = await p.stream(chat);
    await chunks[Symbol.asyncIterator]().return?.();
    await until(() => standIn.aborted() === before + 1);
  });

  it('throws 502 from the iterator on a malformed stream, a connection closed mid-stream, or an error event', async () => {
    const p = provider();
    for (const [mode, text] of [
      ['malformed-stream', 'malformed stream'],
      ['close-mid-stream', 'the connection closed before the answer was complete'],
      ['error-event', 'an error in the stream'],
    ] as const) {
      standIn.setMode(mode);
      const chunks = await p.stream(chat);
      const err = await failure(collect(chunks));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
      expect(err.message).toContain(text);
    }
    // What the provider said in the stream is for the log, not the client.
    const said = await failure(collect(await p.stream(chat)));
    expect(said.message).not.toContain(STAND_IN_STREAM_ERROR);
    expect((said as UpstreamError).providerSaid).toBe(`${STAND_IN_STREAM_ERROR}; key Bearer ***`);
    standIn.setMode('malformed-stream');
    expect(await failure(p.complete(chat))).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
  });

  it('scrubs the key sent (operator, BYOK, Azure api-key) from an error event, in the error and all it carries', async () => {
    const operatorKey = 'sk-operator-0123456789abcdefXYZ';
    const userKey = 'sk-user-own-abcdefghijklmnop0123';
    standIn.setMode('error-event');
    for (const [settings, options, key, said] of [
      [{}, {}, operatorKey, 'Bearer ***'],
      [{}, { apiKey: userKey }, userKey, 'Bearer ***'],
      [{ auth: 'api-key' as const }, {}, operatorKey, '***'],
    ] as const) {
      const err = await failure(collect(await provider({ apiKey: operatorKey, ...settings }).stream(chat, options)));
      const sent = standIn.requests.at(-1)!.headers;
      expect(sent.authorization ?? sent['api-key']).toContain(key); // the stand-in did echo this key
      expect((err as UpstreamError).providerSaid).toBe(`${STAND_IN_STREAM_ERROR}; key ${said}`);
      const everything = JSON.stringify({
        ...err,
        message: err.message,
        providerSaid: (err as UpstreamError).providerSaid,
      });
      expect(everything).not.toContain(key.slice(0, 12));
      expect(everything).not.toContain(key.slice(-12));
    }
  });

  it('reports a refused connection as a retryable 502 without addresses', async () => {
    const err = await failure(provider({ baseUrl: 'http://127.0.0.1:1/v1' }).complete(chat));
    expect(err).toMatchObject({ status: 502, retryable: true });
    expect(err.message).toBe('The model provider "openai" failed: connection error (ECONNREFUSED)');
  });
});
