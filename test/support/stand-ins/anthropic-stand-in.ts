import { type Exchange, pieces, sendJson, startSse, startStandIn, type StandIn, words } from './stand-in-server.js';

export type { ModeOptions, RecordedRequest, StandIn, StandInMode } from './stand-in-server.js';

export interface AnthropicStandInOptions {
  /** The objects GET /v1/models lists. */
  models?: Array<Record<string, unknown>>;
  /** Models per page of GET /v1/models, whatever `limit` asks (to exercise paging). */
  pageSize?: number;
}

export const DEFAULT_ANTHROPIC_MODELS = [
  { type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
];

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string | Array<{ type: string; text?: string }> }
  | { type: string; text?: string };

interface Message {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * Anthropic's Messages API on 127.0.0.1: GET /v1/models (paged), POST /v1/messages (JSON and SSE).
 * Replies: "echo: <last user text>"; "Let me look that up." and a tool_use of the first tool,
 * input {"text": <last user text>}, when tools are given to a user turn; "tool said: <result>"
 * when the last user message holds a tool_result.
 */
export async function startAnthropicStandIn(options: AnthropicStandInOptions = {}): Promise<StandIn> {
  const models = options.models ?? DEFAULT_ANTHROPIC_MODELS;
  let calls = 0;
  return startStandIn('', async (exchange) => {
    const { request, res, mode } = exchange;
    if (mode === 'hang') return;
    if (mode.startsWith('status-')) return failWithStatus(exchange);
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /v1/models') {
      const limit = Math.min(Number(request.query.limit ?? 20), options.pageSize ?? Infinity);
      const start = request.query.after_id ? models.findIndex((m) => m.id === request.query.after_id) + 1 : 0;
      const page = models.slice(start, start + limit);
      return sendJson(res, 200, {
        data: page,
        has_more: start + limit < models.length,
        first_id: page[0]?.id ?? null,
        last_id: page[page.length - 1]?.id ?? null,
      });
    }
    if (route !== 'POST /v1/messages')
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });

    const body = request.body ?? {};
    const id = `msg_standin_${++calls}`;
    const content = script(body);
    const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const inputTokens = (body.messages?.length ?? 0) * 10 + (body.system ? 5 : 0);
    const outputTokens = content.reduce((n, b) => n + (b.type === 'text' ? words(b.text) : 5), 0);
    if (!body.stream) {
      if (mode !== 'ok') return partialJson(exchange);
      return sendJson(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      });
    }

    const send = startSse(res);
    const event = (type: string, data: object) =>
      send(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    await event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    });
    if (await brokeOff(exchange)) return;
    await event('ping', {});
    for (const [index, block] of content.entries()) {
      if (block.type === 'text') {
        await event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of pieces(block.text))
          await event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        await event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const json = JSON.stringify(block.input);
        const half = Math.ceil(json.length / 2);
        for (const part of ['', json.slice(0, half), json.slice(half)])
          await event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
      }
      await event('content_block_stop', { index });
    }
    await event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    await event('message_stop', {});
    res.end();
  });
}

type ReplyBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function script(body: {
  messages?: Message[];
  tools?: Array<{ name: string }>;
  tool_choice?: { type: string };
}): ReplyBlock[] {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  const blocks = (m: Message | undefined): Block[] =>
    !m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  const result = blocks(last).find((b): b is Extract<Block, { type: 'tool_result' }> => b.type === 'tool_result');
  if (last?.role === 'user' && result) return [{ type: 'text', text: `tool said: ${textOf(result.content)}` }];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const userText = blocks(lastUser)
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join(' ');
  if (body.tools?.length && last?.role === 'user' && body.tool_choice?.type !== 'none')
    return [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id: 'toolu_standin_1', name: body.tools[0].name, input: { text: userText } },
    ];
  return [{ type: 'text', text: `echo: ${userText}` }];
}

async function brokeOff(exchange: Exchange): Promise<boolean> {
  const { res, mode } = exchange;
  switch (mode) {
    case 'malformed-stream':
      res.end('event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n');
      return true;
    case 'close-mid-stream':
      exchange.cut();
      return true;
    case 'stall-mid-stream':
      return true;
    case 'error-event': {
      // The credential received is echoed: a test sees whether it is scrubbed.
      const message = `Overloaded; key ${exchange.request.headers['x-api-key'] ?? 'none'}`;
      res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`,
      );
      return true;
    }
    default:
      return false;
  }
}

function failWithStatus(exchange: Exchange): void {
  const status = Number(exchange.mode.slice('status-'.length));
  const types: Record<number, [string, string]> = {
    400: ['invalid_request_error', 'temperature: range: 0..1'],
    401: ['authentication_error', 'invalid x-api-key'],
    429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
    500: ['api_error', 'Internal server error'],
  };
  const [type, message] = types[status] ?? ['api_error', 'error'];
  const headers: Record<string, string> = status === 429 ? { 'retry-after': String(exchange.retryAfterSeconds) } : {};
  sendJson(exchange.res, status, { type: 'error', error: { type, message } }, headers);
}

function partialJson(exchange: Exchange): void {
  const { res, mode } = exchange;
  if (mode === 'error-event') return failWithStatus({ ...exchange, mode: 'status-500' });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"id": "msg_partial", "content": [');
  if (mode === 'malformed-stream') res.end();
  else if (mode === 'close-mid-stream') exchange.cut();
}

function textOf(content: string | Array<{ type: string; text?: string }> | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => b.text ?? '').join(' ');
}
