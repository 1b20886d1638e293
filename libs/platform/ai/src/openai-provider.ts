import { messageOf, scrubSecret, truncate } from '@kw/platform-models';
import type { AiProvider, CallOptions, GraphExtraction } from './ai-provider.js';
import type { EmbeddingPrompts, EmbeddingPurpose } from './embedding-prompts.js';
import { extractGraphByPatterns } from './pattern-entities.js';

export interface OpenAiProviderOptions {
  /** Base URL including the API version, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  apiKey?: string;
  chatModel: string;
  embeddingModel: string;
  /** Put before each text embedded for a purpose (embeddingPrompts: the model family's by default). */
  embeddingPrompts?: EmbeddingPrompts;
  timeoutMs?: number;
}

/**
 * An OpenAI-compatible endpoint failed. `message` is the platform's own words (the path and the
 * status, "not valid JSON", a timeout): it may be shown to callers and stored on a fragment's
 * enrichment. What the provider said (its error message, with the key sent scrubbed) is
 * `providerSaid`, for the server log only: an error body can echo the key or describe the
 * provider's internals (docs/errors.md, UPSTREAM_ERROR).
 */
export class AiProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly providerSaid?: string,
  ) {
    super(message);
    this.name = 'AiProviderError';
  }
}

const SUMMARY_PROMPT =
  'Summarise the following note in at most three sentences, in its own language. Answer with the summary only.';
const TAGS_PROMPT = (max: number) =>
  `Give at most ${max} short lower-case tags (one or two words) for the following note, as a JSON array of strings and nothing else.`;

/**
 * Any OpenAI-compatible HTTP endpoint (OpenAI, Ollama, vLLM, LiteLLM...): chat completions for
 * summaries and tags, /embeddings for vectors. Graph extraction stays pattern-based (no
 * prompt is reliable enough across models to feed the graph without a schema).
 */
export class OpenAiCompatibleProvider implements AiProvider {
  readonly name = 'openai';

  constructor(private readonly options: OpenAiProviderOptions) {}

  async summarize(text: string, options: CallOptions = {}): Promise<string> {
    return (await this.chat(SUMMARY_PROMPT, text, options)).trim();
  }

  async generateTags(text: string, max: number, options: CallOptions = {}): Promise<string[]> {
    const answer = await this.chat(TAGS_PROMPT(max), text, options);
    return parseTags(answer).slice(0, max);
  }

  async embed(texts: string[], purpose?: EmbeddingPurpose, options: CallOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const prompt = purpose ? (this.options.embeddingPrompts?.[purpose] ?? '') : '';
    const body = await this.post<{ data?: Array<{ index: number; embedding: number[] }>; usage?: WireUsage }>(
      '/embeddings',
      { model: this.options.embeddingModel, input: prompt ? texts.map((t) => prompt + t) : texts },
      options.timeoutMs,
    );
    const data = body.data;
    if (!Array.isArray(data) || data.length !== texts.length)
      throw new AiProviderError('/embeddings: unexpected response shape');
    reportUsage(body.usage, options);
    return [...data].sort((a, b) => a.index - b.index).map((d) => normalise(d.embedding));
  }

  async extractGraph(text: string): Promise<GraphExtraction> {
    return extractGraphByPatterns(text);
  }

  private async chat(system: string, user: string, options: CallOptions): Promise<string> {
    const body = await this.post<{ choices?: Array<{ message?: { content?: string } }>; usage?: WireUsage }>(
      '/chat/completions',
      {
        model: this.options.chatModel,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        temperature: 0,
      },
      options.timeoutMs,
    );
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new AiProviderError('/chat/completions: no message content');
    reportUsage(body.usage, options);
    return content;
  }

  private async post<T>(path: string, payload: unknown, timeoutMs = this.options.timeoutMs ?? 60_000): Promise<T> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}${path}`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers['authorization'] = `Bearer ${this.options.apiKey}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw new AiProviderError(`${path}: ${failureOf(err, timeoutMs)}`);
    }
    if (!res.ok) {
      const said = truncate(scrubSecret(messageOf(text), this.options.apiKey));
      throw new AiProviderError(`${path}: HTTP ${res.status}`, res.status, said || undefined);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // The parser's message quotes the answer's bytes: the log gets a scrubbed start of it.
      throw new AiProviderError(
        `${path}: the answer is not valid JSON`,
        res.status,
        truncate(scrubSecret(text.trim(), this.options.apiKey)) || undefined,
      );
    }
  }
}

/** An OpenAI-compatible answer's `usage` (embeddings report prompt tokens only). */
interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
}

/** Tells the caller the tokens the answer reports; an answer without `usage` reports nothing. */
function reportUsage(usage: WireUsage | undefined, options: CallOptions): void {
  if (!options.onUsage || !usage || typeof usage !== 'object') return;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n) : 0);
  options.onUsage({ inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) });
}

/** A failed exchange in the platform's words: a timeout, or the connection's error code (never its message). */
function failureOf(err: unknown, timeoutMs: number): string {
  const name = (err as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = ((err as { cause?: { code?: unknown } })?.cause?.code ?? (err as { code?: unknown })?.code) as unknown;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? `connection error (${code})` : 'connection error';
}

/** Tags from a model answer: a JSON array when it complies, else a comma/line separated list. */
export function parseTags(answer: string): string[] {
  const json = answer.match(/\[[\s\S]*\]/)?.[0];
  let raw: unknown[] = [];
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (Array.isArray(parsed)) raw = parsed;
    } catch {
      // fall through to the plain-list reading
    }
  }
  if (raw.length === 0) raw = answer.split(/[,\n]/);
  const tags = raw
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^[\s\-*#"'`]+|[\s"'`.]+$/g, '').toLowerCase())
    .filter((t) => t.length > 0 && t.length <= 100);
  return [...new Set(tags)];
}

function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm > 0 ? vector.map((v) => v / norm) : vector;
}
