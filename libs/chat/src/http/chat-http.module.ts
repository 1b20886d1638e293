import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { ERROR_HEADERS, QUERY_KEY_AUTHENTICATOR } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { BLOB_STORAGE, createBlobStorage } from '@kw/platform-storage';
import { ChatCompletionsController } from './completions/chat-completions.controller.js';
import { EmbedConfigsController } from './embed-configs.controller.js';
import { ContextItems } from './embed/context-items.js';
import { EmbedAgent } from './embed/embed-agent.js';
import { EmbedChatController } from './embed/embed-chat.controller.js';
import { EmbedKeyAuthenticator, EmbedKeyGuard, EmbedRequests } from './embed/embed-key.guard.js';
import { EmbedErrorCors } from './embed/embed-error-cors.js';
import { EmbedWidgetController } from './embed/widget/embed-widget.controller.js';
import { ExpertsController } from './experts.controller.js';
import { GeneratedImages } from './images/generated-images.js';
import { ImagesController } from './images/images.controller.js';
import { ModelCatalog } from './models/model-catalog.js';
import { modelGatewayProvider } from './models/model-gateway.provider.js';
import { ModelsController } from './models/models.controller.js';
import { ProviderKeys } from './models/provider-keys.js';
import { UsageRecorder } from './models/usage-recorder.js';
import { AiHelpersController } from './ai-helpers.controller.js';
import { BillingController } from './billing.controller.js';
import { PlanGate } from './plan-gate.js';
import { UncountedUsage } from './uncounted-usage.js';
import { PlansController } from './plans.controller.js';
import { VaultController } from './vault.controller.js';
import { WebSearchController, WebSearchGrantsController } from './web-search.controller.js';
import { webSearchProvider } from './web-search.provider.js';

/**
 * The HTTP side of the chat component, composed into the process that serves the API. Model and
 * web-search calls run here, next to the client's connection (streams are not messages); the
 * vault, usage and grants are the chat service's, reached through kw.chat.v1.
 */
@Module({
  controllers: [
    AiHelpersController,
    PlansController,
    BillingController,
    ModelsController,
    ChatCompletionsController,
    ImagesController,
    WebSearchController,
    WebSearchGrantsController,
    VaultController,
    ExpertsController,
    EmbedConfigsController,
    EmbedChatController,
    EmbedWidgetController,
  ],
  providers: [
    modelGatewayProvider,
    webSearchProvider,
    { provide: BLOB_STORAGE, useFactory: (config: AppConfig) => createBlobStorage(config), inject: [APP_CONFIG] },
    ModelCatalog,
    ProviderKeys,
    UsageRecorder,
    PlanGate,
    UncountedUsage,
    GeneratedImages,
    EmbedRequests,
    EmbedKeyGuard,
    { provide: QUERY_KEY_AUTHENTICATOR, useClass: EmbedKeyAuthenticator },
    { provide: ERROR_HEADERS, useClass: EmbedErrorCors },
    ContextItems,
    EmbedAgent,
  ],
})
export class ChatHttpModule {}
