import type { ChatCompletionChunk, ChatMessage, ToolDefinition } from '@kw/platform-models';

/**
 * UTF-8 bytes per token. Byte-level BPE tokenizers average about four bytes a token on English
 * (OpenAI's "four characters" rule), and a script outside ASCII takes more bytes a character and
 * more tokens: counting characters would rate Chinese or Japanese text, about a token a
 * character, at a quarter of its cost.
 */
const BYTES_PER_TOKEN = 4;
/** An image part, whatever its size: OpenAI's base cost of one image (its URL's characters are not tokens). */
const TOKENS_PER_IMAGE = 85;

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
}

function tokensOf(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The prompt's tokens, estimated from what is sent: the messages' text, tool calls and tool
 * definitions. Used where the provider reported no usage (a stream cut or abandoned before its
 * last chunk, or a provider that never reports it), so the budget still counts what the call cost.
 */
export function estimatePromptTokens(
  messages: ReadonlyArray<Pick<ChatMessage, 'content' | 'tool_calls'>>,
  tools?: readonly ToolDefinition[],
): number {
  let bytes = 0;
  let images = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') bytes += bytesOf(message.content);
    else
      for (const part of message.content ?? []) {
        if (part.type === 'text') bytes += bytesOf(part.text);
        else images++;
      }
    for (const call of message.tool_calls ?? [])
      bytes += bytesOf(call.function.name) + bytesOf(call.function.arguments);
  }
  if (tools && tools.length > 0) bytes += bytesOf(JSON.stringify(tools));
  return tokensOf(bytes) + images * TOKENS_PER_IMAGE;
}

/**
 * The usage of a non-streamed answer whose provider reported none: the prompt's estimate and
 * the answer's text and tool-call bytes / 4.
 */
export function estimateCompletionUsage(
  promptEstimate: number,
  choices: ReadonlyArray<{ message: Pick<ChatMessage, 'content' | 'tool_calls'> }>,
): TokenCounts & { total_tokens: number } {
  let bytes = 0;
  for (const { message } of choices) {
    if (typeof message.content === 'string') bytes += bytesOf(message.content);
    for (const call of message.tool_calls ?? [])
      bytes += bytesOf(call.function.name) + bytesOf(call.function.arguments);
  }
  const completion = tokensOf(bytes);
  return { prompt_tokens: promptEstimate, completion_tokens: completion, total_tokens: promptEstimate + completion };
}

/**
 * Counts what a stream delivered, chunk by chunk: the provider's usage when a chunk carries it,
 * otherwise an estimate of the output from the bytes of text and tool calls seen (at least one token per
 * chunk that carried any), so a stream that ends early is not free.
 */
export class StreamTally {
  private reported?: TokenCounts;
  private bytes = 0;
  private chunks = 0;

  constructor(private readonly promptEstimate: number) {}

  observe(chunk: ChatCompletionChunk): void {
    if (chunk.usage) this.reported = chunk.usage;
    let carried = 0;
    for (const choice of chunk.choices) {
      carried += bytesOf(choice.delta.content ?? '');
      for (const part of choice.delta.tool_calls ?? [])
        carried += bytesOf(part.function?.name ?? '') + bytesOf(part.function?.arguments ?? '');
    }
    if (carried > 0) {
      this.bytes += carried;
      this.chunks++;
    }
  }

  /** The usage to record: the provider's if it arrived (never added to), else the estimate. */
  usage(): TokenCounts & { estimated: boolean } {
    if (this.reported)
      return {
        prompt_tokens: this.reported.prompt_tokens,
        completion_tokens: this.reported.completion_tokens,
        estimated: false,
      };
    return {
      prompt_tokens: this.promptEstimate,
      completion_tokens: Math.max(tokensOf(this.bytes), this.chunks),
      estimated: true,
    };
  }
}
