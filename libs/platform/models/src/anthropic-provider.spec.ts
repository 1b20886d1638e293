import { AppError } from '@kw/platform-errors';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicStandIn, type StandIn } from '../../../../test/support/stand-ins/anthropic-stand-in.js';
import { AnthropicProvider } from './anthropic-provider.js';
import type { UpstreamError } from './model-errors.js';
import { toAnthropicRequest } from './anthropic-translation.js';
import { defaultProviderConfig, type ProviderConfig } from './providers-config.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from './wire.js';

let standIn: StandIn;
const providers: AnthropicProvider[] = [];

function provider(overrides: Partial<ProviderConfig> = {}): AnthropicProvider {
  const p = new AnthropicProvider({
    ...defaultProviderConfig('claude', 'anthropic', standIn.url),
    apiKey: 'sk-ant-operator',
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

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** System prompts, an image, a tool call and its result: every translation rule at once. */
const conversation: ChatCompletionRequest = {
  model: 'claude-sonnet-4-5',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'system', content: [{ type: 'text', text: 'Answer in English.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Where was this taken?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.org/cat.jpg' } }] },
    {
      role: 'assistant',
      content: 'Checking the weather there.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny, 24 °C' },
    { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'No rain' }] },
  ],
  tools: [weatherTool],
  tool_choice: 'required',
  temperature: 0.5,
  top_p: 0.9,
  max_tokens: 300,
  stop: 'END',
  user: 'user-42',
};

const conversationBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 300,
  system: 'You are terse.\n\nAnswer in English.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Where was this taken?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'image', source: { type: 'url', url: 'https://example.org/cat.jpg' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking the weather there.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 24 °C' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'No rain' },
      ],
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather of a city',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  tool_choice: { type: 'any' },
  temperature: 0.5,
  top_p: 0.9,
  stop_sequences: ['END'],
  metadata: { user_id: 'user-42' },
};

const ask: ChatCompletionRequest = {
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool],
};

beforeAll(async () => {
  standIn = await startAnthropicStandIn({
    pageSize: 1,
    models: [
      { type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' },
      { type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5' },
      { type: 'model', id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1' },
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

describe('Anthropic provider', () => {
  it('lists every page of models, with the Anthropic headers', async () => {
    expect(await provider().listModels()).toEqual([
      { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', vision: true },
      { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', vision: true },
      { id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1', vision: true },
    ]);
    expect(standIn.requests.map((r) => r.query)).toEqual([
      { limit: '1000' },
      { limit: '1000', after_id: 'claude-sonnet-4-5' },
      { limit: '1000', after_id: 'claude-haiku-4-5' },
    ]);
    expect(standIn.requests[0].path).toBe('/v1/models');
    expect(standIn.requests[0].headers['x-api-key']).toBe('sk-ant-operator');
    expect(standIn.requests[0].headers['anthropic-version']).toBe('2023-06-01');
  });

  it('translates a conversation to the exact Messages body, and the answer back', async () => {
    const completion = await provider().complete(conversation);
    const sent = standIn.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.body).toEqual(conversationBody);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(completion).toEqual({
      id: expect.stringMatching(/^msg_standin_\d+$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-sonnet-4-5',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'tool said: Sunny, 24 °C' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 35, completion_tokens: 5, total_tokens: 40 },
    });
  });

  it('answers a tool_use as OpenAI tool_calls, next to the text', async () => {
    const completion = await provider().complete(ask);
    expect(standIn.requests[0].body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather of a city',
          input_schema: weatherTool.function.parameters,
        },
      ],
    });
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: 'Let me look that up.',
        tool_calls: [
          {
            id: 'toolu_standin_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"text":"Weather in Paris?"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('streams OpenAI chunks: role first, text, tool-call deltas numbered among tools, finish and usage last', async () => {
    const chunks = await collect(await provider().stream(ask));
    expect(standIn.requests[0].body.stream).toBe(true);
    expect(chunks[0].id).toMatch(/^msg_standin_\d+$/);
    const base = {
      id: chunks[0].id,
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'claude-sonnet-4-5',
    };
    const choice = (delta: object, finish_reason: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason }],
    });
    expect(chunks).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Let ' }),
      choice({ content: 'me ' }),
      choice({ content: 'look ' }),
      choice({ content: 'that ' }),
      choice({ content: 'up.' }),
      choice({
        tool_calls: [
          { index: 0, id: 'toolu_standin_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"text":"Weath' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: 'er in Paris?"}' } }] }),
      { ...choice({}, 'tool_calls'), usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } },
    ]);
  });

  it('streams a plain answer ending with stop and usage', async () => {
    const chunks = await collect(await provider().stream({ ...ask, tools: undefined }));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('echo: Weather in Paris?');
    expect(chunks.at(-1)).toMatchObject({
      choices: [{ delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
    });
  });

  it('maps tool_choice and refuses input Anthropic cannot take, naming the field', () => {
    const choose = (tool_choice: ChatCompletionRequest['tool_choice']) =>
      toAnthropicRequest({ ...ask, tool_choice }, false).tool_choice;
    expect(choose('auto')).toEqual({ type: 'auto' });
    expect(choose('none')).toEqual({ type: 'none' });
    expect(choose({ type: 'function', function: { name: 'get_weather' } })).toEqual({
      type: 'tool',
      name: 'get_weather',
    });

    const refuse = (messages: ChatCompletionRequest['messages']) => () =>
      toAnthropicRequest({ ...ask, messages }, false);
    expect(refuse([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }])).toThrow(
      'messages[0].content[0].image_url.url: must be a data: URL or an http(s) URL',
    );
    expect(
      refuse([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:text/plain,hi' } }] }]),
    ).toThrow('a data URL must be a base64 image');
    expect(
      refuse([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '[1]' } }],
        },
      ]),
    ).toThrow('messages[0].tool_calls[0].function.arguments: must be a JSON object');
    expect(refuse([{ role: 'tool', content: 'x' }])).toThrow('messages[0].tool_call_id: required');
    try {
      refuse([{ role: 'tool', content: 'x' }])();
    } catch (err) {
      expect(err).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', param: 'messages[0].tool_call_id' });
    }
  });

  it('maps failures: 5xx/429 → 502, 400 → UPSTREAM_REJECTED, stream errors → iterator throws 502', async () => {
    const p = provider();
    standIn.setMode('status-500');
    expect(await failure(p.complete(ask))).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR', retryable: true });
    standIn.setMode('status-429', { retryAfterSeconds: 2 });
    expect(await failure(p.stream(ask))).toMatchObject({ status: 502, retryable: true, retryAfterMs: 2000 });
    standIn.setMode('status-400');
    const rejected = await failure(p.complete(ask));
    expect(rejected).toMatchObject({ status: 400, code: 'UPSTREAM_REJECTED' });
    expect(rejected.message).toBe('The model provider "claude" rejected the request: temperature: range: 0..1');

    for (const [mode, text] of [
      ['malformed-stream', 'malformed stream'],
      ['close-mid-stream', 'the connection closed before the answer was complete'],
      ['error-event', 'an error in the stream'],
    ] as const) {
      standIn.setMode(mode);
      const err = await failure(collect(await p.stream(ask)));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
      expect(err.message).toContain(text);
    }
    // What the provider said in its error event is for the log, not the client; the key it echoes is scrubbed.
    const err = await failure(collect(await p.stream(ask)));
    expect(err.message).not.toContain('Overloaded');
    expect((err as UpstreamError).providerSaid).toBe('overloaded_error: Overloaded; key ***');
  });

  it('scrubs the key sent (operator or BYOK) from an error event, in the error and all it carries', async () => {
    const operatorKey = 'sk-ant-operator-0123456789abcdef';
    const userKey = 'sk-ant-user-own-fedcba9876543210';
    standIn.setMode('error-event');
    for (const [options, key] of [
      [{}, operatorKey],
      [{ apiKey: userKey }, userKey],
    ] as const) {
      const err = await failure(collect(await provider({ apiKey: operatorKey }).stream(ask, options)));
      expect(standIn.requests.at(-1)!.headers['x-api-key']).toBe(key); // the stand-in did echo this key
      expect((err as UpstreamError).providerSaid).toBe('overloaded_error: Overloaded; key ***');
      const everything = JSON.stringify({
        ...err,
        message: err.message,
        providerSaid: (err as UpstreamError).providerSaid,
      });
      expect(everything).not.toContain(key.slice(0, 12));
      expect(everything).not.toContain(key.slice(-12));
    }
  });

  it('sends a BYOK key instead of the configured one, and configured headers', async () => {
    await provider({ headers: { 'anthropic-beta': 'tools-2024' } }).complete(ask, { apiKey: 'sk-ant-user' });
    expect(standIn.requests[0].headers['x-api-key']).toBe('sk-ant-user');
    expect(standIn.requests[0].headers['anthropic-beta']).toBe('tools-2024');
  });

  it('aborts through the signal and times out like any provider', async () => {
    const before = standIn.aborted();
    standIn.setMode('hang');
    const controller = new AbortController();
    const pending = provider().complete(ask, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).name).toBe('AbortError');
    for (let i = 0; i < 100 && standIn.aborted() === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(standIn.aborted()).toBe(before + 1);

    const err = await failure(provider({ timeoutMs: 100 }).stream(ask));
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(err.message).toContain('no answer within 100 ms');
  });
});
