import { loadProvidersConfig } from '@kw/platform-models';
import { defineComponent } from '@kw/platform-runtime';
import { CHAT_BODY_LIMIT_BYTES } from './chat-limits.js';
import { ChatHttpModule } from './http/chat-http.module.js';
import { ChatServiceModule } from './service/chat-service.module.js';

/**
 * The chat component (control plane): the OpenAI-compatible API (/api/v1), whose model calls
 * run in the process serving the API, and the service that owns the vault, model usage and
 * web-search access. docs/chat.md.
 */
export const chatComponent = defineComponent({
  name: 'chat',
  planes: ['control'],
  module: ChatServiceModule,
  httpModule: ChatHttpModule,
  healthChecks: (config) => [
    {
      name: 'model-providers',
      optional: true,
      check: async () => {
        if (loadProvidersConfig(config, process.env).providers.length === 0) {
          throw new Error('No model provider is configured: set CHAT_PROVIDERS or CHAT_PROVIDERS_FILE (docs/chat.md)');
        }
      },
    },
  ],
  routeBodies: () => ({
    bodyLimits: [{ method: 'POST', url: '/api/v1/chat/completions', bytes: CHAT_BODY_LIMIT_BYTES }],
    // The provider signs the exact bytes of its webhook's body (docs/billing.md).
    rawJson: [{ method: 'POST', url: '/api/billing/stripe/webhook' }],
  }),
  openApiDocuments: [
    {
      path: '/api/v1/openapi.json',
      pathPrefix: '/api/v1/',
      title: 'Knowledge Workspace Platform: OpenAI-compatible API',
      description:
        'The OpenAI-compatible API of the platform (models, chat completions, images, web search, vault). Errors: {error:{message,type,code,param}}.',
    },
  ],
});
