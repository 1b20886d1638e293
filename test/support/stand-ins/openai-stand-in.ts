import {
  type Exchange,
  pieces,
  sendJson,
  startSse,
  startStandIn,
  type StandIn,
  TINY_PNG_B64,
  words,
} from './stand-in-server.js';

export type { ModeOptions, RecordedRequest, StandIn, StandInMode } from './stand-in-server.js';
export { TINY_PNG_B64 } from './stand-in-server.js';

export interface OpenAiStandInOptions {
  /** The objects GET /v1/models lists (any extra metadata is passed as given). */
  models?: Array<Record<string, unknown>>;
  /** false: never report usage in a stream, even when asked (as some compatible servers do). */
  streamUsage?: boolean;
  /** Milliseconds of silence before each streamed event, as a slow model keeps a stream open. */
  eventGapMs?: number;
}

export const DEFAULT_OPENAI_MODELS = [
  { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' },
  { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
  { id: 'gpt-image-1', object: 'model', created: 1745517030, owned_by: 'system' },
];

interface Message {
  role: string;
  content: string | Array<{ type: string; text?: string }> | null;
}

/** The scripted reply: a tool call when tools are offered to a user turn, else text. */
type Reply = { text: string } | { tool: { id: string; name: string; arguments: string } };

/**
 * An OpenAI-compatible API on 127.0.0.1 (base URL ends in /v1): GET /models, POST /embeddings
 * (deterministic 8-dimension vectors), POST /chat/completions
 * (JSON and SSE, text and tool calls), POST /images/generations (a tiny PNG in base64).
 * Replies: "echo: <last user text>"; a call of the first tool, arguments {"text": <last user text>},
 * when tools are given and the last message is the user's; "tool said: <result>" after a tool message.
 */
export async function startOpenAiStandIn(options: OpenAiStandInOptions = {}): Promise<StandIn> {
  const models = options.models ?? DEFAULT_OPENAI_MODELS;
  let calls = 0;
  return startStandIn('/v1', async (exchange) => {
    const { request, res, mode } = exchange;
    if (mode === 'hang') return;
    if (mode.startsWith('status-')) return failWithStatus(exchange);
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /v1/models') return sendJson(res, 200, { object: 'list', data: models });
    if (route === 'POST /v1/embeddings') {
      // Deterministic 8-dimension vectors: the input's character codes folded into 8 buckets.
      const input: string[] = Array.isArray(request.body?.input)
        ? request.body.input
        : [String(request.body?.input ?? '')];
      const data = input.map((text, index) => {
        const v = new Array(8).fill(0);
        for (let i = 0; i < text.length; i++) v[i % 8] += text.charCodeAt(i) % 17;
        return { object: 'embedding', index, embedding: v };
      });
      const tokens = input.reduce((n, t) => n + words(t), 0);
      return sendJson(res, 200, {
        object: 'list',
        model: request.body?.model,
        data,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    }
    if (route === 'POST /v1/images/generations') {
      if (mode !== 'ok') return partialJson(exchange);
      return sendJson(res, 200, {
        created: 1700000000,
        data: [{ b64_json: TINY_PNG_B64, revised_prompt: `revised: ${request.body?.prompt}` }],
      });
    }
    if (route !== 'POST /v1/chat/completions') return sendJson(res, 404, { error: { message: 'Not found' } });

    const body = request.body ?? {};
    const id = `chatcmpl-standin-${++calls}`;
    const reply = script(body);
    const usage = usageOf(body.messages ?? [], reply);
    if (!body.stream) {
      if (mode !== 'ok' && mode !== 'no-usage') return partialJson(exchange);
      const message =
        'text' in reply
          ? { role: 'assistant', content: reply.text }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: reply.tool.id,
                  type: 'function',
                  function: { name: reply.tool.name, arguments: reply.tool.arguments },
                },
              ],
            };
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: 1700000000,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
        ...(mode === 'no-usage' ? {} : { usage }),
      });
    }
    await streamReply(
      exchange,
      id,
      body,
      reply,
      usage,
      options.streamUsage !== false && mode !== 'no-usage',
      options.eventGapMs ?? 0,
    );
  });
}

async function streamReply(
  exchange: Exchange,
  id: string,
  body: { model?: string; stream_options?: { include_usage?: boolean } },
  reply: Reply,
  usage: ReturnType<typeof usageOf>,
  reportUsage: boolean,
  gapMs: number,
): Promise<void> {
  const { res } = exchange;
  const withUsage = reportUsage && body.stream_options?.include_usage === true;
  const sse = startSse(res);
  const send = async (event: string) => {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    await sse(event);
  };
  const chunk = (delta: object, finish: string | null = null) =>
    send(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...(withUsage ? { usage: null } : {}),
      })}\n\n`,
    );
  await chunk({ role: 'assistant', content: '' });
  if (await brokeOff(exchange, 'data: {"id": "broken", "choices": [\n\n')) return;

  if ('text' in reply) {
    for (const piece of pieces(reply.text)) await chunk({ content: piece });
  } else {
    const { id: callId, name, arguments: args } = reply.tool;
    await chunk({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name, arguments: '' } }] });
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)])
      await chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] });
  }
  await chunk({}, 'text' in reply ? 'stop' : 'tool_calls');
  if (withUsage)
    await send(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1700000000, model: body.model, choices: [], usage })}\n\n`,
    );
  res.end('data: [DONE]\n\n');
}

/** Applies a mid-stream failure mode after the first event; true when the stream was broken off. */
async function brokeOff(exchange: Exchange, malformed: string): Promise<boolean> {
  const { res, mode } = exchange;
  switch (mode) {
    case 'malformed-stream':
      res.write(malformed);
      res.end();
      return true;
    case 'close-mid-stream':
      exchange.cut();
      return true;
    case 'stall-mid-stream':
      return true;
    case 'error-event': {
      // Like OpenRouter, it echoes the request's credential: a test sees whether it is scrubbed.
      const { authorization, 'api-key': apiKey } = exchange.request.headers;
      const message = `${STAND_IN_STREAM_ERROR}; key ${authorization ?? apiKey ?? 'none'}`;
      res.end(`data: ${JSON.stringify({ error: { message, type: 'server_error' } })}\n\n`);
      return true;
    }
    default:
      return false;
  }
}

/** What the stand-in's error bodies say per status (`status-<n>` modes), for tests that look for it. */
export const STAND_IN_ERROR_MESSAGES: Record<number, string> = {
  400: "Invalid value for 'temperature': must be at most 2.",
  401: 'Incorrect API key provided.',
  429: 'Rate limit reached.',
  500: 'The server had an error while processing your request: internal upstream secret detail.',
};

/** What the `error-event` mode's mid-stream error event says, before `; key <the credential received>`. */
export const STAND_IN_STREAM_ERROR = 'The stand-in is overloaded';

function failWithStatus(exchange: Exchange): void {
  const status = Number(exchange.mode.slice('status-'.length));
  const headers: Record<string, string> = status === 429 ? { 'retry-after': String(exchange.retryAfterSeconds) } : {};
  const message = STAND_IN_ERROR_MESSAGES[status] ?? 'error';
  sendJson(exchange.res, status, { error: { message, type: 'stand_in_error' } }, headers);
}

/** A non-streaming answer broken the way the mode says. */
function partialJson(exchange: Exchange): void {
  const { res, mode } = exchange;
  if (mode === 'error-event') return failWithStatus({ ...exchange, mode: 'status-500' });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"id": "partial", "choices": [');
  if (mode === 'malformed-stream') res.end();
  else if (mode === 'close-mid-stream') exchange.cut();
  // stall-mid-stream: nothing more is sent.
}

function script(body: {
  messages?: Message[];
  tools?: Array<{ function: { name: string } }>;
  tool_choice?: unknown;
}): Reply {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return { text: `tool said: ${textOf(last.content)}` };
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const userText = lastUser ? textOf(lastUser.content) : '';
  if (body.tools?.length && last?.role === 'user' && body.tool_choice !== 'none')
    return {
      tool: { id: 'call_standin_1', name: body.tools[0].function.name, arguments: JSON.stringify({ text: userText }) },
    };
  return { text: `echo: ${userText}` };
}

function usageOf(messages: Message[], reply: Reply) {
  const prompt = messages.length * 10;
  const completion = 'text' in reply ? words(reply.text) : 5;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function textOf(content: Message['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join(' ');
}
