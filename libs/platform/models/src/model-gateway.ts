import { createModelProvider } from './create-model-provider.js';
import { buildCatalog, type ModelCatalog } from './model-catalog.js';
import { abortError, badModelRequest, isAbortError, modelNotFound, UpstreamError } from './model-errors.js';
import type { ModelInfo } from './model-info.js';
import type { CallOptions, ModelProvider, UpstreamModel } from './model-provider.js';
import { defaultProviderConfig, type ProviderConfig, type ProvidersConfig } from './providers-config.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ImageGenerationRequest,
  ImageGenerationResult,
} from './wire.js';

export interface GatewayCallOptions {
  signal?: AbortSignal;
  /** Bring your own key: the caller's key for a provider, or undefined for the operator's. */
  credentialFor?: (providerId: string) => Promise<{ apiKey: string; credential: string } | undefined>;
}

/** Who answered a call, for metering and logs. */
export interface Served {
  provider: string;
  upstreamModel: string;
  /** 'operator', or the `credential` credentialFor returned. */
  credential: string;
  /** Attempts made in all, fallback providers included. */
  attempts: number;
}

export interface ModelGatewayOptions {
  /** Providers to use instead of building them from the configuration (tests). */
  providers?: ModelProvider[];
  logger?: { warn(obj: object, msg: string): void };
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

export const RETRY_BASE_MS = 200;
export const RETRY_AFTER_MAX_MS = 10_000;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The model catalog and the routing of calls to providers: the request's model is swapped for
 * the upstream id; connection errors, timeouts, 429 and 5xx are retried with backoff, then the
 * configured fallback providers are tried with a model of the same family. Nothing is retried
 * once the caller's signal aborted, nor after a stream began (stream() resolves at the first 2xx).
 */
export class ModelGateway {
  private readonly order: ProviderConfig[];
  private readonly configs = new Map<string, ProviderConfig>();
  private readonly providers = new Map<string, ModelProvider>();
  private readonly discovered = new Map<string, UpstreamModel[]>();
  private catalog: ModelCatalog;
  private refreshing: Promise<void> | undefined;
  private readonly logger: ModelGatewayOptions['logger'];
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(config: ProvidersConfig, options: ModelGatewayOptions = {}) {
    const injected = new Map((options.providers ?? []).map((p) => [p.id, p]));
    const configured = new Set(config.providers.map((p) => p.id));
    this.order = [
      ...config.providers,
      ...[...injected.values()].filter((p) => !configured.has(p.id)).map((p) => defaultProviderConfig(p.id, p.kind)),
    ];
    for (const c of this.order) {
      this.configs.set(c.id, c);
      this.providers.set(c.id, injected.get(c.id) ?? createModelProvider(c));
    }
    this.logger = options.logger;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.catalog = buildCatalog(this.order, this.discovered);
  }

  get configured(): boolean {
    return this.order.length > 0;
  }

  /**
   * Discovers every discovering provider's models and rebuilds the catalog. A provider that
   * fails keeps its previous list (logged); declared models are always present. Concurrent
   * calls share one discovery.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.discover().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The catalog, sorted by id, hidden models left out. */
  models(): ModelInfo[] {
    return this.catalog.listed;
  }

  /** A model by public id (hidden ones included). */
  find(id: string): ModelInfo | undefined {
    return this.catalog.find(id);
  }

  async complete(
    model: ModelInfo,
    request: ChatCompletionRequest,
    options: GatewayCallOptions = {},
  ): Promise<{ completion: ChatCompletion; served: Served }> {
    const { value, served } = await this.run(model, options, (provider, target, callOptions) =>
      provider.complete({ ...request, model: target.upstreamId }, callOptions),
    );
    return { completion: value, served };
  }

  async stream(
    model: ModelInfo,
    request: ChatCompletionRequest,
    options: GatewayCallOptions = {},
  ): Promise<{ chunks: AsyncIterable<ChatCompletionChunk>; served: Served }> {
    const { value, served } = await this.run(model, options, (provider, target, callOptions) =>
      provider.stream({ ...request, model: target.upstreamId, stream: true }, callOptions),
    );
    return { chunks: this.loggingFailure(model, value), served };
  }

  async generateImage(
    model: ModelInfo,
    request: ImageGenerationRequest,
    options: GatewayCallOptions = {},
  ): Promise<{ result: ImageGenerationResult; served: Served }> {
    if (model.modality !== 'image') throw badModelRequest(`The model "${model.id}" does not generate images`, 'model');
    if (!this.providers.get(model.provider)?.generateImage)
      throw badModelRequest(`The provider of the model "${model.id}" does not generate images`, 'model');
    const { value, served } = await this.run(
      model,
      options,
      (provider, target, callOptions) => provider.generateImage!(target.upstreamId, request, callOptions),
      (provider) => provider.generateImage !== undefined,
    );
    return { result: value, served };
  }

  /** Closes every provider's pooled connections. */
  close(): void {
    for (const provider of this.providers.values()) provider.close?.();
  }

  private async discover(): Promise<void> {
    await Promise.all(
      this.order
        .filter((c) => c.discover)
        .map(async (c) => {
          try {
            this.discovered.set(c.id, await this.providers.get(c.id)!.listModels());
          } catch (err) {
            this.logger?.warn(
              { provider: c.id, error: err instanceof Error ? err.message : String(err) },
              'Model discovery failed; the previous model list is kept',
            );
          }
        }),
    );
    this.catalog = buildCatalog(this.order, this.discovered);
  }

  /** The call on the model's provider with retries, then on each fallback provider's stand-in model. */
  private async run<T>(
    model: ModelInfo,
    options: GatewayCallOptions,
    call: (provider: ModelProvider, target: ModelInfo, callOptions: CallOptions) => Promise<T>,
    eligible: (provider: ModelProvider) => boolean = () => true,
  ): Promise<{ value: T; served: Served }> {
    const primary = this.configs.get(model.provider);
    if (!primary) throw modelNotFound(model.id);
    const { signal } = options;
    let attempts = 0;
    let lastError: unknown;
    for (const target of this.targets(model, primary, eligible)) {
      const provider = this.providers.get(target.provider)!;
      const retries = this.configs.get(target.provider)!.retries;
      if (target !== model)
        this.logger?.warn(
          { model: model.id, provider: model.provider, fallback: target.provider, error: errorMessage(lastError) },
          'Model provider failed; trying the fallback provider',
        );
      const credential = await options.credentialFor?.(target.provider);
      const callOptions: CallOptions = { signal, apiKey: credential?.apiKey };
      for (let retry = 0; ; retry++) {
        if (signal?.aborted) throw abortError(signal.reason);
        attempts++;
        try {
          const value = await call(provider, target, callOptions);
          const served = {
            provider: target.provider,
            upstreamModel: target.upstreamId,
            credential: credential?.credential ?? 'operator',
            attempts,
          };
          return { value, served };
        } catch (err) {
          if (signal?.aborted) throw isAbortError(err) ? err : abortError(signal.reason);
          if (!(err instanceof UpstreamError) || !err.retryable) throw this.logged(model, err);
          lastError = err;
          if (retry >= retries) break;
          await this.pause(this.backoff(retry, err.retryAfterMs), signal);
        }
      }
    }
    throw this.logged(model, lastError);
  }

  /** A failed stream's error, logged as it ends the stream: the client sees only its status. */
  private async *loggingFailure<T>(model: ModelInfo, chunks: AsyncIterable<T>): AsyncGenerator<T> {
    try {
      yield* chunks;
    } catch (err) {
      throw this.logged(model, err);
    }
  }

  /** Logs a provider's failure with what the provider said, which its 502 answer leaves out. */
  private logged(model: ModelInfo, err: unknown): unknown {
    if (err instanceof UpstreamError && err.status >= 500)
      this.logger?.warn(
        {
          model: model.id,
          provider: err.provider,
          upstreamStatus: err.upstreamStatus,
          error: err.message,
          providerSaid: err.providerSaid,
        },
        'Model provider failed',
      );
    return err;
  }

  private *targets(
    model: ModelInfo,
    primary: ProviderConfig,
    eligible: (provider: ModelProvider) => boolean,
  ): Generator<ModelInfo> {
    yield model;
    for (const id of primary.fallback) {
      const provider = this.providers.get(id);
      const standIn = provider && eligible(provider) ? this.catalog.standIn(model, id) : undefined;
      if (standIn) yield standIn;
    }
  }

  /** Exponential with jitter (half fixed, half random); the provider's Retry-After when it gave one. */
  private backoff(retry: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, RETRY_AFTER_MAX_MS);
    const ceiling = RETRY_BASE_MS * 2 ** retry;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  private pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.sleep(ms);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(abortError(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      this.sleep(ms).then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }
}

function errorMessage(err: unknown): string | undefined {
  return err instanceof Error ? err.message : undefined;
}
