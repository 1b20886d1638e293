import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG } from '@kw/platform-runtime';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import { enrichmentDbProviders } from './enrichment-db.js';
import { EnrichmentWorker } from './enrichment-worker.js';
import { eventBusProvider } from './event-bus.provider.js';
import { FragmentEnricher } from './fragment-enricher.js';
import { InProcessEnrichmentRecovery } from './in-process-recovery.js';
import { OutboxRelayService } from './outbox-relay.service.js';

/**
 * Asynchronous enrichment, imported by the fragments service module: the outbox relay, the
 * event bus and the worker that summarises, tags, embeds and links fragments.
 */
@Module({
  providers: [
    ...enrichmentDbProviders,
    eventBusProvider,
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    FragmentEnricher,
    EnrichmentWorker,
    OutboxRelayService,
    InProcessEnrichmentRecovery,
  ],
})
export class EnrichmentModule {}
