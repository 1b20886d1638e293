import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { APP_CONFIG, blobStorageProvider, entitlementProviders } from '@kw/platform-runtime';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import { EnrichmentWorker } from '../events/enrichment-worker.js';
import { ExportArchiveExpiry } from '../events/export-archive-expiry.js';
import { eventBusProvider } from '../events/event-bus.provider.js';
import { InProcessEnrichmentRecovery } from '../events/in-process-recovery.js';
import { OutboxRelayService } from '../events/outbox-relay.service.js';
import { CollectionsRepository } from '../persistence/collections.repository.js';
import { EnrichmentRepository } from '../persistence/enrichment.repository.js';
import { fragmentsDbProviders } from '../persistence/fragments-database.js';
import { FragmentTypesRepository } from '../persistence/fragment-types.repository.js';
import { FragmentsRepository } from '../persistence/fragments.repository.js';
import { OutboxRepository } from '../persistence/outbox.repository.js';
import { CollectionsHandlers } from './collections.handlers.js';
import { EnrichmentHandlers } from './enrichment.handlers.js';
import { FragmentEnricher } from './enrichment/fragment-enricher.js';
import { FragmentTypesHandlers } from './fragment-types.handlers.js';
import { TransfersRepository } from '../persistence/transfers.repository.js';
import { WorkspaceExportRepository } from '../persistence/workspace-export.repository.js';
import { BulkFragmentsHandlers } from './bulk-fragments.handlers.js';
import { WorkspaceExport } from './portability/workspace-export.js';
import { WorkspaceImport } from './portability/workspace-import.js';
import { TransfersHandlers } from './transfers.handlers.js';
import { WorkspacePurgeHandlers } from './workspace-purge.handlers.js';
import { WorkspacePurgeRepository } from '../persistence/workspace-purge.repository.js';
import { FragmentsHandlers } from './fragments.handlers.js';
import { WorkspaceGate } from './workspace-gate.js';

/**
 * The service side of the fragments component: the handlers of kw.fragments.v1.FragmentsService
 * and kw.enrichment.v1.EnrichmentService, and the asynchronous enrichment (the outbox relay, the
 * event bus and the worker that summarises, tags, embeds and links fragments), over the
 * component's one data-plane Prisma client.
 */
@Module({
  providers: [
    ...fragmentsDbProviders,
    FragmentsRepository,
    FragmentTypesRepository,
    CollectionsRepository,
    EnrichmentRepository,
    OutboxRepository,
    WorkspaceGate,
    FragmentTypesHandlers,
    FragmentsHandlers,
    BulkFragmentsHandlers,
    // Export archives live in blob storage (local disk embedded, S3 distributed), under transfers/.
    blobStorageProvider,
    TransfersRepository,
    WorkspaceExportRepository,
    WorkspaceExport,
    WorkspaceImport,
    TransfersHandlers,
    ExportArchiveExpiry,
    WorkspacePurgeRepository,
    WorkspacePurgeHandlers,
    CollectionsHandlers,
    EnrichmentHandlers,
    eventBusProvider,
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    FragmentEnricher,
    EnrichmentWorker,
    OutboxRelayService,
    InProcessEnrichmentRecovery,
    ...entitlementProviders,
  ],
})
export class FragmentsServiceModule {}
