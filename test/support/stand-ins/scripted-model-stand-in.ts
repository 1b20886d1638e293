import { pieces, sendJson, startSse, startStandIn, type StandIn } from './stand-in-server.js';

export interface ScriptedRequest {
  model: string;
  messages: Array<{ role: string; content: any; tool_calls?: any[]; tool_call_id?: string }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  max_tokens?: number;
}

/**
 * One scripted answer: text, or tool calls (arguments as an object, sent as JSON). `cutAfter`:
 * the connection is dropped after that many pieces of the text (a provider breaking off).
 */
export type ScriptedReply =
  { text: string; cutAfter?: number } | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };

export interface ScriptedModel extends StandIn {
  /**
   * Queues the next answers; a function sees the request it answers (the tool results so far),
   * and may first do something the test needs at that moment (the answer waits for it).
   */
  script(
    ...replies: Array<ScriptedReply | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>)>
  ): void;
  /** The chat completion requests received, in order. */
  chatRequests(): ScriptedRequest[];
}

/**
 * A model API on 127.0.0.1 in OpenAI's wire format that answers what the test scripted, in
 * order: the text or the tool calls of the next reply (streamed when asked, usage last). With
 * nothing queued it answers "(unscripted)". GET /v1/models lists `models`. Of the stand-in's
 * failure modes (setMode) it plays `status-500` and `stall-mid-stream` (a first event, then silence).
 */
export async function startScriptedModel(
  models: string[] = ['scripted-1'],
  options: { /** Time between streamed pieces of text. */ pieceDelayMs?: number } = {},
): Promise<ScriptedModel> {
  const queue: Array<ScriptedReply | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>)> = [];
  let calls = 0;
  const standIn = await startStandIn('/v1', async ({ request, res, mode, cut }) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /v1/models')
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', owned_by: 'test' })),
      });
    if (route !== 'POST /v1/chat/completions') return sendJson(res, 404, { error: { message: 'Not found' } });
    const body = request.body as ScriptedRequest;
    // Failure modes (setMode) leave the scripted answers queued for the requests after them.
    if (mode === 'status-500')
      return sendJson(res, 500, { error: { message: 'scripted failure', type: 'server_error' } });
    if (mode === 'stall-mid-stream')
      return void startSse(res)(
        `data: ${JSON.stringify({ id: 'stalled', object: 'chat.completion.chunk', created: 1700000000, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
      );
    const next = queue.shift() ?? { text: '(unscripted)' };
    const reply = typeof next === 'function' ? await next(body) : next;
    const id = `chatcmpl-scripted-${++calls}`;
    const toolCalls =
      'toolCalls' in reply
        ? reply.toolCalls.map((c, i) => ({
            id: `call_${calls}_${i}`,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          }))
        : [];
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    if (!body.stream) {
      const message =
        'text' in reply
          ? { role: 'assistant', content: reply.text }
          : { role: 'assistant', content: null, tool_calls: toolCalls };
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: 1700000000,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    }
    const send = startSse(res);
    const chunk = (delta: object, finishReason: string | null = null) =>
      send(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1700000000, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
      );
    await chunk({ role: 'assistant', content: '' });
    if ('text' in reply)
      for (const [i, piece] of pieces(reply.text).entries()) {
        if (i === reply.cutAfter) return cut();
        await chunk({ content: piece });
        if (options.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, options.pieceDelayMs));
      }
    for (const [index, call] of toolCalls.entries()) {
      await chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      await chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
    }
    await chunk({}, finish);
    await send(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1700000000, model: body.model, choices: [], usage })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  return {
    ...standIn,
    script: (...replies) => void queue.push(...replies),
    chatRequests: () =>
      standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').map((r) => r.body),
  };
}

/** CHAT_PROVIDERS for a platform whose only provider is the scripted model (every model id it lists). */
export function scriptedProviders(model: ScriptedModel): string {
  return JSON.stringify({
    providers: [
      {
        id: 'scripted',
        kind: 'openai',
        baseUrl: model.url,
        apiKey: 'sk-scripted',
        retries: 0,
        models: [{ match: '*' }],
      },
    ],
  });
}
