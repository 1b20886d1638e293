import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { loadEnvelopeSealer, loadSecretBox, SECRET_BOX } from '@kw/platform-secret-box';
import { TokenAuthenticationCache } from '@kw/platform-token-cache';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { chatDbProviders } from '../persistence/chat-database.js';
import { EmbedConfigsRepository } from '../persistence/embed-configs.repository.js';
import { ExpertsRepository } from '../persistence/experts.repository.js';
import { ModelUsageRepository } from '../persistence/model-usage.repository.js';
import { VaultRepository } from '../persistence/vault.repository.js';
import { WebSearchGrantsRepository } from '../persistence/web-search-grants.repository.js';
import { EmbedConversationsRepository } from '../persistence/embed-conversations.repository.js';
import { EmbedAdmission } from './embed-admission.js';
import { EmbedChatHandlers } from './embed-chat.handlers.js';
import { EmbedConfigsHandlers } from './embed-configs.handlers.js';
import { EmbedFeedback } from './embed-feedback.js';
import { EmbedStanding } from './embed-standing.js';
import { HostIdentity } from './host-identity.js';
import { ExpertsHandlers } from './experts.handlers.js';
import { ModelUsageHandlers } from './model-usage.handlers.js';
import { VAULT_SEALER, VaultHandlers } from './vault.handlers.js';
import { VaultRewrap } from './vault-rewrap.js';
import { EmbedKeyTokensRewrap } from './embed-key-tokens-rewrap.js';
import { WebSearchAccessHandlers } from './web-search-access.handlers.js';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import { AiHelpersHandlers } from './ai-helpers.handlers.js';
import { AiAvailability } from './ai-helpers/ai-availability.js';
import { AiHelpers } from './ai-helpers/ai-helpers.js';
import { AiUsage } from './ai-helpers/ai-usage.js';
import { EnrichmentUsageWorker } from '../events/enrichment-usage.worker.js';
import { PlanAssignmentsRepository } from '../persistence/plan-assignments.repository.js';
import { PlansHandlers } from './plans.handlers.js';
import { Plans } from './plans/plans.js';
import { BillingRepository } from '../persistence/billing.repository.js';
import { BillingHandlers } from './billing.handlers.js';
import { BillingCheckout } from './billing/billing-checkout.js';
import { BILLING_PROVIDER } from './billing/billing-provider.js';
import { BillingWebhooks } from './billing/billing-webhooks.js';
import { createBillingProvider } from './billing/create-billing-provider.js';

/**
 * The service side of the chat component (kw.chat.v1): the vault, model usage, web-search access,
 * experts, embed configurations, the embed chat's stored state, the AI helpers, plans and billing.
 */
@Module({
  providers: [
    ...chatDbProviders,
    {
      provide: VAULT_SEALER,
      useFactory: (config: AppConfig, logger: Logger) => loadEnvelopeSealer(config, 'chat', (msg) => logger.warn(msg)),
      inject: [APP_CONFIG, LOGGER],
    },
    {
      provide: SECRET_BOX,
      useFactory: (config: AppConfig, logger: Logger) => loadSecretBox(config, 'chat', (msg) => logger.warn(msg)),
      inject: [APP_CONFIG, LOGGER],
    },
    VaultRepository,
    EmbedConfigsRepository,
    EmbedConfigsHandlers,
    ModelUsageRepository,
    WebSearchGrantsRepository,
    VaultHandlers,
    ModelUsageHandlers,
    WebSearchAccessHandlers,
    VaultRewrap,
    EmbedKeyTokensRewrap,
    WorkspaceGate,
    ExpertsRepository,
    ExpertsHandlers,
    EmbedConversationsRepository,
    HostIdentity,
    EmbedStanding,
    EmbedAdmission,
    // The embed keys' scoped tokens, authenticated once per AUTH_CACHE_TTL_MS (revocations drop them).
    TokenAuthenticationCache,
    EmbedFeedback,
    EmbedChatHandlers,
    // The AI provider enrichment uses (AI_PROVIDER), for the AI helpers.
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    AiHelpers,
    AiAvailability,
    AiUsage,
    AiHelpersHandlers,
    EnrichmentUsageWorker,
    PlanAssignmentsRepository,
    Plans,
    PlansHandlers,
    // Subscription billing (docs/billing.md): null without BILLING_PROVIDER.
    {
      provide: BILLING_PROVIDER,
      useFactory: (config: AppConfig, logger: Logger) => createBillingProvider(config, logger),
      inject: [APP_CONFIG, LOGGER],
    },
    BillingRepository,
    BillingCheckout,
    BillingWebhooks,
    BillingHandlers,
  ],
  exports: [VaultRewrap, EmbedKeyTokensRewrap],
})
export class ChatServiceModule {}
