import { readAnthropicStream } from './anthropic-stream.js';
import { fromAnthropicResponse, toAnthropicRequest, type AnthropicResponse } from './anthropic-translation.js';
import { upstreamError } from './model-errors.js';
import type { CallOptions, ModelProvider, UpstreamModel } from './model-provider.js';
import type { ProviderConfig } from './providers-config.js';
import { releasing, UpstreamClient, type UpstreamCall } from './upstream-http.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from './wire.js';

type ProviderSettings = Pick<ProviderConfig, 'id' | 'baseUrl' | 'apiKey' | 'query' | 'headers' | 'timeoutMs'>;

export const ANTHROPIC_VERSION = '2023-06-01';
/** The model list is paged; this bounds a provider that never says has_more: false. */
const MAX_MODEL_PAGES = 20;

/** Anthropic's Messages API behind the OpenAI wire format (translation: anthropic-translation.ts). */
export class AnthropicProvider implements ModelProvider {
  readonly id: string;
  readonly kind = 'anthropic' as const;
  private readonly client: UpstreamClient;
  private readonly baseHeaders: Record<string, string>;

  constructor(private readonly settings: ProviderSettings) {
    this.id = settings.id;
    this.client = new UpstreamClient({
      provider: settings.id,
      baseUrl: settings.baseUrl,
      timeoutMs: settings.timeoutMs,
      query: settings.query,
    });
    // Configured headers come last: an operator may pin another anthropic-version or add anthropic-beta.
    this.baseHeaders = { 'anthropic-version': ANTHROPIC_VERSION, ...settings.headers };
  }

  async listModels(options: CallOptions = {}): Promise<UpstreamModel[]> {
    const models: UpstreamModel[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_MODEL_PAGES; page++) {
      const body = await this.client.json<{ data?: unknown; has_more?: boolean; last_id?: string }>({
        method: 'GET',
        path: '/v1/models',
        query: after ? { limit: '1000', after_id: after } : { limit: '1000' },
        ...this.call(options),
      });
      if (!Array.isArray(body.data)) throw upstreamError(this.id, 'the model list has no data array');
      for (const entry of body.data as Array<Record<string, unknown>>) {
        if (!entry || typeof entry.id !== 'string') continue;
        const model: UpstreamModel = { id: entry.id, vision: true }; // every current Claude model reads images
        if (typeof entry.display_name === 'string') model.display_name = entry.display_name;
        if (typeof entry.max_input_tokens === 'number') model.context_length = entry.max_input_tokens;
        if (typeof entry.max_tokens === 'number') model.max_output_tokens = entry.max_tokens;
        models.push(model);
      }
      if (!body.has_more || !body.last_id) break;
      after = body.last_id;
    }
    return models;
  }

  async complete(request: ChatCompletionRequest, options: CallOptions = {}): Promise<ChatCompletion> {
    const response = await this.client.json<AnthropicResponse>({
      method: 'POST',
      path: '/v1/messages',
      body: JSON.stringify(toAnthropicRequest(request, false)),
      ...this.call(options, true),
    });
    if (!response || !Array.isArray(response.content))
      throw upstreamError(this.id, 'the answer has no content', { retryable: true });
    return fromAnthropicResponse(response);
  }

  async stream(request: ChatCompletionRequest, options: CallOptions = {}): Promise<AsyncIterable<ChatCompletionChunk>> {
    const call = this.call(options, true, 'text/event-stream');
    const exchange = await this.client.open({
      method: 'POST',
      path: '/v1/messages',
      body: JSON.stringify(toAnthropicRequest(request, true)),
      ...call,
    });
    return releasing(readAnthropicStream(exchange, this.id, call.secret), exchange);
  }

  close(): void {
    this.client.close();
  }

  private call(
    options: CallOptions,
    json = false,
    accept = 'application/json',
  ): Pick<UpstreamCall, 'headers' | 'signal' | 'secret'> {
    const key = options.apiKey ?? this.settings.apiKey;
    const headers: Record<string, string> = { ...this.baseHeaders, accept };
    if (json) headers['content-type'] = 'application/json';
    if (key) headers['x-api-key'] = key;
    return { headers, signal: options.signal, secret: key };
  }
}
