import type { Provider } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { ModelGateway, loadProvidersConfig } from '@kw/platform-models';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';

export const MODEL_GATEWAY = Symbol('MODEL_GATEWAY');

/** The process's gateway to the operator's model providers (CHAT_PROVIDERS, docs/chat.md). */
export const modelGatewayProvider: Provider = {
  provide: MODEL_GATEWAY,
  useFactory: (config: AppConfig, logger: Logger) =>
    new ModelGateway(loadProvidersConfig(config, process.env), {
      logger: { warn: (obj: object, msg: string) => logger.warn(obj, msg) },
    }),
  inject: [APP_CONFIG, LOGGER],
};
