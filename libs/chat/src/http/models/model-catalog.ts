import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { ModelGateway, ModelInfo } from '@kw/platform-models';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { MODEL_GATEWAY } from './model-gateway.provider.js';

/** Start-up waits this long for the providers' model lists; a slow provider is listed on the next refresh. */
const FIRST_DISCOVERY_MS = 5_000;

/**
 * The models this deployment offers: discovered from the providers at start and every
 * CHAT_MODELS_REFRESH_MS after, merged with the operator's metadata. Never hard-coded.
 */
@Injectable()
export class ModelCatalog implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(MODEL_GATEWAY) private readonly gateway: ModelGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.gateway.configured) {
      this.logger.warn(
        'chat: no model provider is configured; set CHAT_PROVIDERS or CHAT_PROVIDERS_FILE (docs/chat.md)',
      );
      return;
    }
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.refresh(),
      new Promise((resolve) => (timeout = setTimeout(resolve, FIRST_DISCOVERY_MS).unref())),
    ]);
    clearTimeout(timeout);
    this.timer = setInterval(() => void this.refresh(), this.config.CHAT_MODELS_REFRESH_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  list(): ModelInfo[] {
    return this.gateway.models();
  }

  /** The model, or 404 `model_not_found` naming the `model` parameter. */
  require(id: string, param = 'model'): ModelInfo {
    const model = this.gateway.find(id);
    if (!model) throw modelNotFound(id, param);
    return model;
  }

  /**
   * For a field that names a model to use later (an expert's preference, a configuration's
   * model): a chat model of this deployment, or "" to leave the choice to later; else 400.
   */
  requireChatModelField(model: string | undefined, field: string): void {
    if (!model || this.list().some((m) => m.id === model && m.modality === 'chat')) return;
    throw new AppError({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `${field}: "${model}" is not a chat model of this deployment (GET /api/v1/models)`,
      param: field,
      details: { fields: [{ field, problems: ['is not a chat model of this deployment'] }] },
    });
  }

  private async refresh(): Promise<void> {
    try {
      await this.gateway.refresh();
    } catch (err) {
      this.logger.warn({ err }, 'chat: model discovery failed');
    }
  }
}

/** 404 `model_not_found`: also what a model outside the caller's plan answers where plans hide it. */
export function modelNotFound(id: string, param = 'model'): AppError {
  return new AppError({
    status: 404,
    code: ErrorCode.MODEL_NOT_FOUND,
    message: `The model "${id}" does not exist on this deployment (GET /api/v1/models lists them)`,
    param,
  });
}
