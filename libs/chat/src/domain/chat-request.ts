import { AppError, ErrorCode } from '@kw/platform-errors';
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '@kw/platform-models';
import { CHAT_MESSAGES_MAX, CHAT_MODEL_ID_MAX, CHAT_STOP_MAX, CHAT_TOOLS_MAX } from '../chat-limits.js';

/**
 * Parameters of OpenAI's API this route refuses (spec: OpenAI-compatible API): answering them
 * silently would change what the client asked for.
 */
export const REJECTED_PARAMETERS = [
  'parallel_tool_calls',
  'functions',
  'function_call',
  'logprobs',
  'top_logprobs',
  'seed',
  'response_format',
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
] as const;

/** Everything else a request may carry. `n` is accepted only as 1; `stream_options` is read for include_usage. */
const ACCEPTED = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'user',
  'n',
]);

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function invalidParam(param: string, message: string, code: string = ErrorCode.VALIDATION_FAILED): AppError {
  return new AppError({ status: 400, code, message: `${param}: ${message}`, param });
}

/**
 * Whether an optional field was given: OpenAI reads `null` as "not given", and clients that
 * serialise unset options (Python's `None`, several frameworks) send it.
 */
const given = (value: unknown): boolean => value !== undefined && value !== null;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Refuses a field outside `known` in an object nested in the request (a content part, a tool, a
 * tool call, stream_options), as at the top level: 400 unknown_parameter naming its path.
 */
function onlyFields(value: Record<string, unknown>, known: readonly string[], at: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw invalidParam(`${at}.${key}`, `is not a field of ${what}`, 'UNKNOWN_PARAMETER');
  }
}

function boolean(value: unknown, param: string): boolean {
  if (typeof value !== 'boolean') throw invalidParam(param, 'must be a boolean');
  return value;
}

function string(value: unknown, param: string, { min = 0, max = Infinity } = {}): string {
  if (typeof value !== 'string') throw invalidParam(param, 'must be a string');
  if (value.length < min)
    throw invalidParam(param, min === 1 ? 'must not be empty' : `must have at least ${min} characters`);
  if (value.length > max) throw invalidParam(param, `must have at most ${max} characters`);
  return value;
}

function number(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidParam(param, 'must be a number');
  if (value < min || value > max) throw invalidParam(param, `must be between ${min} and ${max}`);
  return value;
}

function integer(value: unknown, param: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidParam(param, 'must be an integer');
  if (value < min) throw invalidParam(param, `must be at least ${min}`);
  return value;
}

function contentParts(value: unknown[], param: string): ContentPart[] {
  return value.map((part, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw invalidParam(at, 'must be an object');
    if (part.type === 'text') {
      onlyFields(part, ['type', 'text'], at, 'a text part');
      return { type: 'text', text: string(part.text, `${at}.text`) };
    }
    if (part.type === 'image_url') {
      onlyFields(part, ['type', 'image_url'], at, 'an image_url part');
      if (!isObject(part.image_url)) throw invalidParam(`${at}.image_url`, 'must be an object with a url');
      onlyFields(part.image_url, ['url', 'detail'], `${at}.image_url`, 'image_url');
      const url = string(part.image_url.url, `${at}.image_url.url`, { min: 1 });
      if (!/^(https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i.test(url)) {
        throw invalidParam(`${at}.image_url.url`, 'must be an http(s) URL or a data:image/...;base64, URL');
      }
      const detail = part.image_url.detail;
      if (given(detail) && !['auto', 'low', 'high'].includes(detail as string)) {
        throw invalidParam(`${at}.image_url.detail`, 'must be auto, low or high');
      }
      return { type: 'image_url', image_url: { url, ...(detail ? { detail: detail as string } : {}) } };
    }
    throw invalidParam(`${at}.type`, 'must be text or image_url');
  });
}

function toolCalls(value: unknown, param: string): ToolCall[] {
  if (!Array.isArray(value)) throw invalidParam(param, 'must be an array');
  return value.map((call, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(call) || call.type !== 'function' || !isObject(call.function)) {
      throw invalidParam(at, 'must be {id, type: "function", function: {name, arguments}}');
    }
    onlyFields(call, ['id', 'type', 'function'], at, 'a tool call');
    onlyFields(call.function, ['name', 'arguments'], `${at}.function`, "a tool call's function");
    return {
      id: string(call.id, `${at}.id`, { min: 1, max: 256 }),
      type: 'function',
      function: {
        name: string(call.function.name, `${at}.function.name`, { min: 1, max: 64 }),
        arguments: string(call.function.arguments, `${at}.function.arguments`),
      },
    };
  });
}

function message(value: unknown, i: number): ChatMessage {
  const at = `messages[${i}]`;
  if (!isObject(value)) throw invalidParam(at, 'must be an object');
  const role = value.role;
  if (typeof role !== 'string' || !ROLES.has(role))
    throw invalidParam(`${at}.role`, 'must be system, user, assistant or tool');
  const content = value.content;
  const out: ChatMessage = { role: role as ChatMessage['role'], content: null };
  if (typeof content === 'string') out.content = content;
  else if (Array.isArray(content)) {
    if (role !== 'user') {
      // Text parts only: images come from users (OpenAI's rule too), never the system prompt.
      const parts = contentParts(content, `${at}.content`);
      if (parts.some((p) => p.type !== 'text'))
        throw invalidParam(`${at}.content`, `a ${role} message has text parts only`);
      out.content = parts;
    } else out.content = contentParts(content, `${at}.content`);
  } else if (content === null || content === undefined) {
    if (role !== 'assistant' || !given(value.tool_calls)) throw invalidParam(`${at}.content`, 'is required');
  } else throw invalidParam(`${at}.content`, 'must be a string or an array of parts');
  if (given(value.name)) out.name = string(value.name, `${at}.name`, { min: 1, max: 64 });
  if (given(value.tool_calls)) {
    if (role !== 'assistant') throw invalidParam(`${at}.tool_calls`, 'is allowed on assistant messages only');
    out.tool_calls = toolCalls(value.tool_calls, `${at}.tool_calls`);
  }
  if (role === 'tool') out.tool_call_id = string(value.tool_call_id, `${at}.tool_call_id`, { min: 1, max: 256 });
  else if (given(value.tool_call_id)) throw invalidParam(`${at}.tool_call_id`, 'is allowed on tool messages only');
  for (const key of Object.keys(value)) {
    if (!['role', 'content', 'name', 'tool_calls', 'tool_call_id'].includes(key)) {
      throw invalidParam(`${at}.${key}`, 'is not a message field', 'UNKNOWN_PARAMETER');
    }
  }
  return out;
}

function tools(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value)) throw invalidParam('tools', 'must be an array');
  if (value.length > CHAT_TOOLS_MAX) throw invalidParam('tools', `must have at most ${CHAT_TOOLS_MAX} entries`);
  const names = new Set<string>();
  return value.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
      throw invalidParam(at, 'must be {type: "function", function: {name, description, parameters}}');
    }
    onlyFields(tool, ['type', 'function'], at, 'a tool');
    onlyFields(tool.function, ['name', 'description', 'parameters', 'strict'], `${at}.function`, "a tool's function");
    const name = string(tool.function.name, `${at}.function.name`, { min: 1 });
    if (!TOOL_NAME.test(name)) throw invalidParam(`${at}.function.name`, 'must be 1 to 64 of a-z, A-Z, 0-9, _ and -');
    if (names.has(name)) throw invalidParam(`${at}.function.name`, `"${name}" is declared twice`);
    names.add(name);
    const parameters = tool.function.parameters;
    if (
      given(parameters) &&
      (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== 'object'))
    ) {
      throw invalidParam(`${at}.function.parameters`, 'must be a JSON Schema object ({"type": "object", ...})');
    }
    const { description, strict } = tool.function;
    return {
      type: 'function',
      function: {
        name,
        ...(given(description) ? { description: string(description, `${at}.function.description`) } : {}),
        ...(given(parameters) ? { parameters: parameters as Record<string, unknown> } : {}),
        // OpenAI's structured tool arguments: passed on to the provider as given.
        ...(given(strict) ? { strict: boolean(strict, `${at}.function.strict`) } : {}),
      },
    };
  });
}

function toolChoice(value: unknown, declared: ToolDefinition[] | undefined): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') {
    if (value === 'required' && !declared?.length) throw invalidParam('tool_choice', '"required" needs tools');
    return value;
  }
  if (isObject(value) && value.type === 'function' && isObject(value.function)) {
    onlyFields(value, ['type', 'function'], 'tool_choice', 'tool_choice');
    onlyFields(value.function, ['name'], 'tool_choice.function', "tool_choice's function");
    const name = string(value.function.name, 'tool_choice.function.name', { min: 1 });
    if (!declared?.some((t) => t.function.name === name)) {
      throw invalidParam('tool_choice.function.name', `names no declared tool ("${name}")`);
    }
    return { type: 'function', function: { name } };
  }
  throw invalidParam('tool_choice', 'must be auto, none, required or {type: "function", function: {name}}');
}

/** What the route needs besides the upstream request: whether to stream, and which field set the token limit. */
export interface ParsedChatRequest {
  request: ChatCompletionRequest;
  stream: boolean;
  maxTokensParam: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Reads a chat completion request the way OpenAI's API does: refused parameters and unknown
 * fields are 400 with `param` naming the field, so a client learns at once what it got wrong.
 * An optional field set to `null` counts as not given (a refused parameter too: it asks for nothing).
 */
export function parseChatRequest(body: unknown): ParsedChatRequest {
  if (!isObject(body)) throw invalidParam('body', 'must be a JSON object');
  for (const key of Object.keys(body)) {
    if ((REJECTED_PARAMETERS as readonly string[]).includes(key)) {
      if (body[key] === null) continue;
      throw invalidParam(key, 'is not supported by this API', ErrorCode.UNSUPPORTED_PARAMETER);
    }
    if (!ACCEPTED.has(key)) throw invalidParam(key, 'is not a parameter of this API', 'UNKNOWN_PARAMETER');
  }
  const model = string(body.model, 'model', { min: 1, max: CHAT_MODEL_ID_MAX });
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalidParam('messages', 'must be a non-empty array');
  }
  if (body.messages.length > CHAT_MESSAGES_MAX) {
    throw invalidParam('messages', `must have at most ${CHAT_MESSAGES_MAX} entries`);
  }
  const request: ChatCompletionRequest = { model, messages: body.messages.map(message) };
  if (given(body.tools)) request.tools = tools(body.tools);
  if (given(body.tool_choice)) request.tool_choice = toolChoice(body.tool_choice, request.tools);
  if (given(body.temperature)) request.temperature = number(body.temperature, 'temperature', 0, 2);
  if (given(body.top_p)) request.top_p = number(body.top_p, 'top_p', 0, 1);
  // max_completion_tokens is OpenAI's current name for max_tokens; it wins when both are given.
  const maxTokensParam = given(body.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens';
  if (given(body[maxTokensParam])) request.max_tokens = integer(body[maxTokensParam], maxTokensParam, 1);
  if (given(body.stop)) {
    const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (!Array.isArray(stop) || stop.length > CHAT_STOP_MAX) {
      throw invalidParam('stop', `must be a string or up to ${CHAT_STOP_MAX} strings`);
    }
    request.stop = stop.map((s, i) => string(s, `stop[${i}]`, { min: 1 }));
  }
  if (given(body.user)) request.user = string(body.user, 'user', { max: 256 });
  if (given(body.n) && body.n !== 1) throw invalidParam('n', 'must be 1', ErrorCode.UNSUPPORTED_PARAMETER);
  if (given(body.stream) && typeof body.stream !== 'boolean') throw invalidParam('stream', 'must be a boolean');
  if (given(body.stream_options)) {
    if (!isObject(body.stream_options)) throw invalidParam('stream_options', 'must be an object');
    if (body.stream !== true) throw invalidParam('stream_options', 'is allowed only when stream is true');
    // Both read and ignored: the last chunk always carries usage, and chunks are never padded.
    onlyFields(body.stream_options, ['include_usage', 'include_obfuscation'], 'stream_options', 'stream_options');
    for (const key of ['include_usage', 'include_obfuscation'])
      if (given(body.stream_options[key])) boolean(body.stream_options[key], `stream_options.${key}`);
  }
  return { request, stream: body.stream === true, maxTokensParam };
}
