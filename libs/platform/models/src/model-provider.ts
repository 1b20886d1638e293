import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ImageGenerationRequest,
  ImageGenerationResult,
} from './wire.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the configured key (bring your own key). */
  apiKey?: string;
}

/** A model as the provider lists it, with whatever metadata it volunteers. */
export interface UpstreamModel {
  id: string;
  display_name?: string;
  context_length?: number;
  max_output_tokens?: number;
  vision?: boolean;
  reasoning?: boolean;
  modality?: 'chat' | 'image';
}

/**
 * The port to one upstream model API, speaking the OpenAI wire format whatever the provider's
 * own. Failures reject with an AppError (UpstreamError for the provider's own failures); a call
 * cancelled through its signal rejects with an error named AbortError.
 */
export interface ModelProvider {
  readonly id: string;
  readonly kind: 'openai' | 'anthropic';
  listModels(options?: CallOptions): Promise<UpstreamModel[]>;
  complete(request: ChatCompletionRequest, options?: CallOptions): Promise<ChatCompletion>;
  /**
   * Resolves once the upstream answered 2xx (errors before that reject, so the caller can still
   * answer 502 JSON); the iterable yields OpenAI chunks, `usage` on those where the provider
   * reported it (possibly none: the caller estimates then; `complete` likewise leaves it out).
   * Iterate it to the end or call return() on its iterator: that releases the connection.
   */
  stream(request: ChatCompletionRequest, options?: CallOptions): Promise<AsyncIterable<ChatCompletionChunk>>;
  generateImage?(
    upstreamModel: string,
    request: ImageGenerationRequest,
    options?: CallOptions,
  ): Promise<ImageGenerationResult>;
  /** Closes pooled connections (shutdown, tests). */
  close?(): void;
}
