import type { ChatCompletionChunk, ChatMessage, ToolDefinition } from '@kw/platform-models';

/** Characters per token, OpenAI's rule of thumb for English text. */
const CHARS_PER_TOKEN = 4;
/** An image part, whatever its size: OpenAI's base cost of one image (its URL's characters are not tokens). */
const TOKENS_PER_IMAGE = 85;

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
}

function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * The prompt's tokens, estimated from what is sent: the messages' text, tool calls and tool
 * definitions. Used where the provider reported no usage (a stream cut or abandoned before its
 * last chunk), so the budget still counts what the call cost.
 */
export function estimatePromptTokens(
  messages: ReadonlyArray<Pick<ChatMessage, 'content' | 'tool_calls'>>,
  tools?: readonly ToolDefinition[],
): number {
  let chars = 0;
  let images = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') chars += message.content.length;
    else
      for (const part of message.content ?? []) {
        if (part.type === 'text') chars += part.text.length;
        else images++;
      }
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  }
  if (tools && tools.length > 0) chars += JSON.stringify(tools).length;
  return tokensOf(chars) + images * TOKENS_PER_IMAGE;
}

/**
 * Counts what a stream delivered, chunk by chunk: the provider's usage when a chunk carries it,
 * otherwise an estimate of the output from the text and tool calls seen (at least one token per
 * chunk that carried any), so a stream that ends early is not free.
 */
export class StreamTally {
  private reported?: TokenCounts;
  private chars = 0;
  private chunks = 0;

  constructor(private readonly promptEstimate: number) {}

  observe(chunk: ChatCompletionChunk): void {
    if (chunk.usage) this.reported = chunk.usage;
    let carried = 0;
    for (const choice of chunk.choices) {
      carried += choice.delta.content?.length ?? 0;
      for (const part of choice.delta.tool_calls ?? [])
        carried += (part.function?.name?.length ?? 0) + (part.function?.arguments?.length ?? 0);
    }
    if (carried > 0) {
      this.chars += carried;
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
      completion_tokens: Math.max(tokensOf(this.chars), this.chunks),
      estimated: true,
    };
  }
}
