import { finishReason, nowSeconds, usageOf, type AnthropicUsage } from './anthropic-translation.js';
import { truncate, upstreamError } from './model-errors.js';
import { scrubSecret } from './scrub-secret.js';
import { MAX_EVENT_CHARS, SseParser } from './sse.js';
import type { UpstreamExchange } from './upstream-http.js';
import type { ChatCompletionChunk, FinishReason } from './wire.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface AnthropicEvent {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: { type: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

/**
 * Anthropic stream events → OpenAI chunks, one event at a time. Tool calls are numbered among
 * tool_use blocks only (OpenAI's tool_calls[].index), whatever text blocks come between them.
 */
export class AnthropicChunkTranslator {
  /** message_stop was seen: the answer is whole. */
  done = false;
  private id = '';
  private model = '';
  private readonly created = nowSeconds();
  private usage: AnthropicUsage = {};
  private finish: FinishReason = null;
  private tools = 0;
  private readonly toolIndexByBlock: number[] = [];

  /** `secret`: the key sent, scrubbed from what an error event says. */
  constructor(
    private readonly provider: string,
    private readonly secret?: string,
  ) {}

  /** The chunk one event stands for, or undefined when it carries nothing for the client. */
  translate(event: AnthropicEvent): ChatCompletionChunk | undefined {
    switch (event.type) {
      case 'message_start':
        this.id = event.message?.id ?? '';
        this.model = event.message?.model ?? '';
        this.usage = { ...event.message?.usage };
        return this.chunk({ role: 'assistant', content: '' });
      case 'content_block_start': {
        const block = event.content_block;
        if (block?.type === 'tool_use') {
          const index = this.tools++;
          this.toolIndexByBlock[event.index ?? 0] = index;
          return this.chunk({
            tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }],
          });
        }
        return block?.type === 'text' && block.text ? this.chunk({ content: block.text }) : undefined;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta?.type === 'text_delta' && delta.text) return this.chunk({ content: delta.text });
        if (delta?.type === 'input_json_delta' && delta.partial_json) {
          const index = this.toolIndexByBlock[event.index ?? 0] ?? 0;
          return this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
        }
        return undefined; // thinking and signature deltas
      }
      case 'message_delta':
        if (event.delta?.stop_reason !== undefined) this.finish = finishReason(event.delta.stop_reason);
        // Counts in message_delta are cumulative: they replace the ones of message_start.
        if (event.usage) this.usage = { ...this.usage, ...definedOnly(event.usage) };
        return undefined;
      case 'message_stop':
        this.done = true;
        return this.chunk({}, this.finish ?? 'stop', true);
      case 'error':
        throw upstreamError(this.provider, 'an error in the stream', {
          retryable: event.error?.type === 'overloaded_error',
          providerSaid:
            truncate(scrubSecret([event.error?.type, event.error?.message].filter(Boolean).join(': '), this.secret)) ||
            undefined,
        });
      default:
        return undefined; // ping, content_block_stop, and events added later
    }
  }

  private chunk(delta: Delta, finish: FinishReason = null, withUsage = false): ChatCompletionChunk {
    const chunk: ChatCompletionChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
    if (withUsage) chunk.usage = usageOf(this.usage);
    return chunk;
  }
}

/**
 * OpenAI chunks from an Anthropic SSE body; throws an upstream error when it breaks off. `secret`
 * is the key sent, scrubbed from what an error event says.
 */
export async function* readAnthropicStream(
  exchange: UpstreamExchange,
  provider: string,
  secret: string | undefined,
): AsyncGenerator<ChatCompletionChunk> {
  const parser = new SseParser();
  const translator = new AnthropicChunkTranslator(provider, secret);
  try {
    for await (const bytes of exchange.chunks()) {
      // After message_stop the body is read to its end so the connection returns to the pool.
      if (translator.done) continue;
      const events = parser.push(bytes);
      if (parser.buffered > MAX_EVENT_CHARS) throw upstreamError(provider, 'malformed stream: an event too large');
      for (let i = 0; i < events.length && !translator.done; i++) {
        const chunk = translator.translate(parse(events[i].data, events[i].event, provider));
        if (chunk) yield chunk;
      }
    }
  } catch (err) {
    if (translator.done) return;
    throw err;
  }
  if (!translator.done) throw upstreamError(provider, 'the stream ended before message_stop');
}

function parse(data: string, event: string, provider: string): AnthropicEvent {
  let parsed: AnthropicEvent;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw upstreamError(provider, 'malformed stream: a data line is not JSON');
  }
  if (!parsed || typeof parsed !== 'object')
    throw upstreamError(provider, 'malformed stream: an event is not an object');
  parsed.type ??= event;
  return parsed;
}

function definedOnly(usage: AnthropicUsage): AnthropicUsage {
  const out: AnthropicUsage = {};
  for (const [k, v] of Object.entries(usage)) if (typeof v === 'number') out[k as keyof AnthropicUsage] = v;
  return out;
}
