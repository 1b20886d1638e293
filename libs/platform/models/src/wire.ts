/**
 * The OpenAI chat wire format, the one language of this library: every provider adapter
 * translates to and from it, so the HTTP edge can pass bodies through without reshaping them.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  /** detail: 'auto' | 'low' | 'high' (a string: the edge validates it; providers pass it on or drop it). */
  | { type: 'image_url'; image_url: { url: string; detail?: string } };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  /** strict: OpenAI's structured tool arguments (passed on by the OpenAI-compatible adapter, dropped by Anthropic's). */
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** OpenAI's newer name for max_tokens; read when max_tokens is absent. */
  max_completion_tokens?: number;
  stop?: string | string[];
  stream?: boolean;
  user?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | null;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };
    finish_reason: FinishReason;
  }>;
  /** Absent when the provider reported none (some OpenAI-compatible servers). */
  usage?: Usage;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: ToolCallDelta[] };
    finish_reason: FinishReason;
  }>;
  usage?: Usage | null;
}

export interface ImageGenerationRequest {
  prompt: string;
  size?: string;
  quality?: string;
  style?: string;
}

export interface ImageGenerationResult {
  created: number;
  data: Array<{ b64_json: string; revised_prompt?: string }>;
}
