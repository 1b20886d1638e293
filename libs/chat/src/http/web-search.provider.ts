import type { Provider } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import { createWebSearchProvider } from '@kw/platform-web-search';

export const WEB_SEARCH_PROVIDER = Symbol('WEB_SEARCH_PROVIDER');

/** WEB_SEARCH_PROVIDER: SearXNG (self-hosted) or Exa (hosted); none when unset. */
export const webSearchProvider: Provider = {
  provide: WEB_SEARCH_PROVIDER,
  useFactory: (config: AppConfig) =>
    createWebSearchProvider({
      provider: config.WEB_SEARCH_PROVIDER,
      url: config.WEB_SEARCH_URL,
      apiKey: config.WEB_SEARCH_API_KEY,
      timeoutMs: config.WEB_SEARCH_TIMEOUT_MS,
    }) ?? null,
  inject: [APP_CONFIG],
};
