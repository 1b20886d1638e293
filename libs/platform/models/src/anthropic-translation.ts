import { invalidModelField } from './model-errors.js';
import type {
  ChatCompletion,
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
  FinishReason,
  ToolCall,
  ToolChoice,
} from './wire.js';

/** Anthropic requires max_tokens; OpenAI clients often leave it out. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
    }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  tool_choice?: { type: 'auto' } | { type: 'none' } | { type: 'any' } | { type: 'tool'; name: string };
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  metadata?: { user_id: string };
}

/** An answer of POST /v1/messages (the fields read). */
export interface AnthropicResponse {
  id: string;
  model: string;
  content: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason: string | null;
  usage?: AnthropicUsage;
}

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/**
 * OpenAI chat request → Anthropic Messages request. System messages become `system`; tool
 * results become user messages; consecutive messages of one role merge (Anthropic wants the
 * roles to alternate). Malformed input the edge let through answers 400 naming the field.
 */
export function toAnthropicRequest(request: ChatCompletionRequest, stream: boolean): AnthropicRequest {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const append = (role: AnthropicMessage['role'], blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const previous = messages[messages.length - 1];
    if (previous?.role === role) previous.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  request.messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    switch (message.role) {
      case 'system':
        system.push(textOf(message.content));
        break;
      case 'user':
        append('user', userBlocks(message.content, at));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, at));
        break;
      case 'tool': {
        if (!message.tool_call_id)
          throw invalidModelField(`${at}.tool_call_id`, `${at}.tool_call_id: required for a tool message`);
        const content = textOf(message.content);
        append('user', [
          content
            ? { type: 'tool_result', tool_use_id: message.tool_call_id, content }
            : { type: 'tool_result', tool_use_id: message.tool_call_id },
        ]);
        break;
      }
      default:
        throw invalidModelField(`${at}.role`, `${at}.role: unknown role`);
    }
  });

  const body: AnthropicRequest = {
    model: request.model,
    max_tokens: request.max_tokens ?? request.max_completion_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  const systemText = system.filter((s) => s.length > 0).join('\n\n');
  if (systemText) body.system = systemText;
  if (request.tools?.length)
    body.tools = request.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      input_schema: t.function.parameters ?? { type: 'object', properties: {} },
    }));
  if (request.tool_choice !== undefined) body.tool_choice = toolChoice(request.tool_choice);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.stop !== undefined)
    body.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.user) body.metadata = { user_id: request.user };
  if (stream) body.stream = true;
  return body;
}

/** Anthropic message → OpenAI chat.completion. */
export function fromAnthropicResponse(response: AnthropicResponse, created = nowSeconds()): ChatCompletion {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use')
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    // thinking and other blocks have no place in the OpenAI message.
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: text.length > 0 || toolCalls.length === 0 ? text : null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: response.id,
    object: 'chat.completion',
    created,
    model: response.model,
    choices: [{ index: 0, message, finish_reason: finishReason(response.stop_reason) }],
    usage: usageOf(response.usage ?? {}),
  };
}

export function finishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

/** Cached prompt tokens are prompt tokens too: Anthropic counts them apart from input_tokens. */
export function usageOf(usage: AnthropicUsage) {
  const prompt =
    (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  const completion = usage.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function toolChoice(choice: ToolChoice): NonNullable<AnthropicRequest['tool_choice']> {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  if (choice && typeof choice === 'object' && choice.function?.name)
    return { type: 'tool', name: choice.function.name };
  throw invalidModelField('tool_choice', 'tool_choice: must be auto, none, required or a function');
}

function textOf(content: ChatMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) if (part.type === 'text') text += text ? `\n${part.text}` : part.text;
  return text;
}

function userBlocks(content: ChatMessage['content'], at: string): AnthropicBlock[] {
  if (content == null) return [];
  // Anthropic refuses empty text blocks.
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: AnthropicBlock[] = [];
  content.forEach((part: ContentPart, j) => {
    if (part.type === 'text') {
      if (part.text) blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      blocks.push(imageBlock(part.image_url?.url, `${at}.content[${j}].image_url.url`));
    }
  });
  return blocks;
}

function imageBlock(url: unknown, at: string): AnthropicBlock {
  if (typeof url === 'string' && url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const params = comma > 0 ? url.slice(5, comma).split(';') : [];
    if (params.length < 2 || !params.includes('base64') || !params[0].startsWith('image/'))
      throw invalidModelField(at, `${at}: a data URL must be a base64 image (data:image/...;base64,...)`);
    return { type: 'image', source: { type: 'base64', media_type: params[0], data: url.slice(comma + 1) } };
  }
  if (typeof url === 'string' && /^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidModelField(at, `${at}: must be a data: URL or an http(s) URL`);
}

function assistantBlocks(message: ChatMessage, at: string): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  const text = textOf(message.content);
  if (text) blocks.push({ type: 'text', text });
  message.tool_calls?.forEach((call, j) => {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments, `${at}.tool_calls[${j}].function.arguments`),
    });
  });
  return blocks;
}

function toolInput(args: string, at: string): Record<string, unknown> {
  if (!args || !args.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw invalidModelField(at, `${at}: must be a JSON object`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidModelField(at, `${at}: must be a JSON object`);
  return parsed as Record<string, unknown>;
}
