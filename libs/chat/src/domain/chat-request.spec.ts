import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import type { ModelInfo } from '@kw/platform-models';
import { REJECTED_PARAMETERS, parseChatRequest } from './chat-request.js';
import { checkChatFitsModel } from './model-fit.js';

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function refusal(body: unknown): { param?: string; code: string; status: number } {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (!AppError.isAppError(err)) throw err;
    return { param: err.param, code: err.code, status: err.status };
  }
  throw new Error('accepted');
}

describe('parseChatRequest', () => {
  it('reads a full request: roles, parts, tool calls and results, tools, options', () => {
    const { request, stream } = parseChatRequest({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.5,
      max_completion_tokens: 100,
      stop: 'END',
      n: 1,
    });
    expect(stream).toBe(true);
    expect(request.max_tokens).toBe(100);
    expect(request.stop).toEqual(['END']);
    expect(request.messages[3]).toEqual({ role: 'tool', content: 'done', tool_call_id: 'c1' });
    expect(request.tool_choice).toEqual({ type: 'function', function: { name: 'f' } });
  });

  it.each(REJECTED_PARAMETERS)('refuses %s as unsupported, naming it', (param) => {
    expect(refusal({ ...base, [param]: 1 })).toEqual({ param, code: 'UNSUPPORTED_PARAMETER', status: 400 });
  });

  it.each([
    [{ ...base, mystery: true }, 'mystery'],
    [{ ...base, model: '' }, 'model'],
    [{ ...base, messages: [] }, 'messages'],
    [{ ...base, messages: [{ role: 'user' }] }, 'messages[0].content'],
    [{ ...base, messages: [{ role: 'user', content: [{ type: 'audio' }] }] }, 'messages[0].content[0].type'],
    [
      {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
      },
      'messages[0].content[0].image_url.url',
    ],
    [{ ...base, messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [
      {
        ...base,
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] },
          { role: 'user', content: 'hi' },
        ],
      },
      'messages[0].content',
    ],
    [{ ...base, messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'messages[0].tool_calls'],
    [{ ...base, temperature: 3 }, 'temperature'],
    [{ ...base, max_tokens: 0 }, 'max_tokens'],
    [{ ...base, max_tokens: 1.5 }, 'max_tokens'],
    [{ ...base, n: 2 }, 'n'],
    [{ ...base, tool_choice: 'required' }, 'tool_choice'],
    [{ ...base, tools: [{ type: 'function', function: { name: 'has space' } }] }, 'tools[0].function.name'],
    [
      { ...base, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] },
      'tools[0].function.parameters',
    ],
    [{ ...base, stream_options: { include_usage: true } }, 'stream_options'],
  ])('refuses %j naming %s', (body, param) => {
    const answer = refusal(body);
    expect(answer.status).toBe(400);
    expect(answer.param).toBe(param);
  });

  it.each([
    ['name', { role: 'user', content: 'hi', name: null }],
    ['tool_calls', { role: 'assistant', content: 'ok', tool_calls: null }],
    ['tool_call_id', { role: 'user', content: 'hi', tool_call_id: null }],
    [
      'image detail',
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: null } }] },
    ],
  ])('reads a message %s of null as not given', (_, message) => {
    const { request } = parseChatRequest({ ...base, messages: [message] });
    expect(JSON.stringify(request)).not.toContain('null');
  });

  it('reads a tool description or parameters of null as not given', () => {
    const tool = { type: 'function', function: { name: 'f', description: null, parameters: null } };
    expect(parseChatRequest({ ...base, tools: [tool] }).request.tools).toEqual([
      { type: 'function', function: { name: 'f' } },
    ]);
  });

  it('still needs content or tool calls on an assistant message when tool_calls is null', () => {
    const body = { ...base, messages: [{ role: 'assistant', content: null, tool_calls: null }] };
    expect(refusal(body).param).toBe('messages[0].content');
  });

  it('names the token-limit field the caller sent', () => {
    expect(parseChatRequest({ ...base, max_completion_tokens: 5 }).maxTokensParam).toBe('max_completion_tokens');
    expect(parseChatRequest({ ...base, max_completion_tokens: null, max_tokens: 5 })).toMatchObject({
      maxTokensParam: 'max_tokens',
      request: { max_tokens: 5 },
    });
  });

  it('never throws anything but a 400 AppError, whatever the body', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        try {
          parseChatRequest(body);
        } catch (err) {
          expect(AppError.isAppError(err) && err.status === 400 && typeof err.param === 'string').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('checkChatFitsModel', () => {
  const model = (vision: boolean, modality: 'chat' | 'image' = 'chat'): ModelInfo => ({
    id: 'm',
    owned_by: 'p',
    display_name: 'm',
    modality,
    capabilities: { vision, reasoning: false, max_output_tokens: 100, context_length: 1000 },
    provider: 'p',
    upstreamId: 'm',
    family: 'm',
  });
  const withImage = parseChatRequest({
    ...base,
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }],
  }).request;

  it('refuses an image for a model without vision, max_tokens above the model, and an image model', () => {
    expect(() => checkChatFitsModel(withImage, model(false))).toThrow(/does not accept images/);
    expect(() => checkChatFitsModel(withImage, model(true))).not.toThrow();
    expect(() => checkChatFitsModel({ ...parseChatRequest(base).request, max_tokens: 101 }, model(true))).toThrow(
      /at most 100/,
    );
    expect(() => checkChatFitsModel(parseChatRequest(base).request, model(true, 'image'))).toThrow(/generates images/);
  });

  it('names max_completion_tokens when the caller set the limit with it', () => {
    const parsed = parseChatRequest({ ...base, max_completion_tokens: 101 });
    expect(() => checkChatFitsModel(parsed.request, model(true), parsed.maxTokensParam)).toThrow(
      expect.objectContaining({ param: 'max_completion_tokens' }),
    );
  });
});
