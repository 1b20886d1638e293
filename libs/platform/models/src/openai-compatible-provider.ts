import type { ProviderConfig } from './providers-config.js';
import type { CallOptions, ModelProvider, UpstreamModel } from './model-provider.js';
import { upstreamError } from './model-errors.js';
import { readOpenAiStream } from './openai-stream.js';
import { releasing, UpstreamClient } from './upstream-http.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ImageGenerationRequest,
  ImageGenerationResult,
} from './wire.js';

type ProviderSettings = Pick<ProviderConfig, 'id' | 'baseUrl' | 'apiKey' | 'auth' | 'query' | 'headers' | 'timeoutMs'>;

/**
 * Any OpenAI-compatible chat API (OpenAI, Azure OpenAI, OpenRouter, vLLM, Ollama, LiteLLM...):
 * the wire format is ours, so requests and answers pass through nearly untouched.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id: string;
  readonly kind = 'openai' as const;
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
    this.baseHeaders = { accept: 'application/json', ...settings.headers };
  }

  async listModels(options: CallOptions = {}): Promise<UpstreamModel[]> {
    const body = await this.client.json<{ data?: unknown }>({
      method: 'GET',
      path: '/models',
      ...this.auth(options),
    });
    if (!Array.isArray(body.data)) throw upstreamError(this.id, 'the model list has no data array');
    return body.data.flatMap((entry) => {
      const model = readUpstreamModel(entry);
      return model ? [model] : [];
    });
  }

  async complete(request: ChatCompletionRequest, options: CallOptions = {}): Promise<ChatCompletion> {
    const completion = await this.client.json<ChatCompletion>({
      method: 'POST',
      path: '/chat/completions',
      body: JSON.stringify({ ...request, stream: false, stream_options: undefined }),
      ...this.auth(options, true),
    });
    if (!completion || !Array.isArray(completion.choices))
      throw upstreamError(this.id, 'the completion has no choices', { retryable: true });
    return completion;
  }

  async stream(request: ChatCompletionRequest, options: CallOptions = {}): Promise<AsyncIterable<ChatCompletionChunk>> {
    const auth = this.auth(options, true, 'text/event-stream');
    const exchange = await this.client.open({
      method: 'POST',
      path: '/chat/completions',
      // include_usage: the last chunk reports the tokens (metering needs it).
      body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
      ...auth,
    });
    return releasing(readOpenAiStream(exchange, this.id, auth.secret), exchange);
  }

  async generateImage(
    upstreamModel: string,
    request: ImageGenerationRequest,
    options: CallOptions = {},
  ): Promise<ImageGenerationResult> {
    const payload: Record<string, unknown> = { model: upstreamModel, prompt: request.prompt, n: 1 };
    if (request.size !== undefined) payload.size = request.size;
    if (request.quality !== undefined) payload.quality = request.quality;
    if (request.style !== undefined) payload.style = request.style;
    // gpt-image models always answer base64 and refuse the parameter.
    if (!upstreamModel.startsWith('gpt-image')) payload.response_format = 'b64_json';
    const body = await this.client.json<{
      created?: number;
      data?: Array<{ b64_json?: unknown; revised_prompt?: unknown }>;
    }>({ method: 'POST', path: '/images/generations', body: JSON.stringify(payload), ...this.auth(options, true) });
    const image = body.data?.[0];
    if (!image || typeof image.b64_json !== 'string') throw upstreamError(this.id, 'the answer holds no base64 image');
    return {
      created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
      data: [
        typeof image.revised_prompt === 'string'
          ? { b64_json: image.b64_json, revised_prompt: image.revised_prompt }
          : { b64_json: image.b64_json },
      ],
    };
  }

  close(): void {
    this.client.close();
  }

  private auth(
    options: CallOptions,
    json = false,
    accept = 'application/json',
  ): { headers: Record<string, string>; signal?: AbortSignal; secret?: string } {
    const key = options.apiKey ?? this.settings.apiKey;
    const headers: Record<string, string> = { ...this.baseHeaders, accept };
    if (json) headers['content-type'] = 'application/json';
    if (key) {
      if (this.settings.auth === 'api-key') headers['api-key'] = key;
      else headers.authorization = `Bearer ${key}`;
    }
    return { headers, signal: options.signal, secret: key };
  }
}

/** Reads the metadata OpenRouter, vLLM and others add to the OpenAI model object. */
function readUpstreamModel(entry: unknown): UpstreamModel | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const m = entry as Record<string, unknown>;
  if (typeof m.id !== 'string' || !m.id) return undefined;
  const model: UpstreamModel = { id: m.id };
  if (typeof m.name === 'string' && m.name) model.display_name = m.name;
  const context = positive(m.context_length) ?? positive(m.max_model_len);
  if (context) model.context_length = context;
  const maxOut = positive((m.top_provider as Record<string, unknown> | undefined)?.max_completion_tokens);
  if (maxOut) model.max_output_tokens = maxOut;
  const architecture = m.architecture as { input_modalities?: unknown; output_modalities?: unknown } | undefined;
  const inputs = Array.isArray(architecture?.input_modalities) ? architecture.input_modalities : undefined;
  const outputs = Array.isArray(architecture?.output_modalities) ? architecture.output_modalities : undefined;
  if (inputs) model.vision = inputs.includes('image');
  if (Array.isArray(m.supported_parameters)) model.reasoning = m.supported_parameters.includes('reasoning');
  // OpenAI's own list says nothing of modality; its image models are known by name.
  if ((outputs && outputs.includes('image') && !outputs.includes('text')) || /^(dall-e|gpt-image)/.test(m.id))
    model.modality = 'image';
  return model;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
