import { Module, type ModuleMetadata } from '@nestjs/common';
import { EnrichmentModule, ENRICHMENT_SERVICE_PROVIDERS } from '../enrichment/index.js';
import { CollectionHandlers } from './collections.handlers.js';
import { FragmentTypeHandlers } from './fragment-types.handlers.js';
import { FragmentHandlers } from './fragments.handlers.js';
import { FRAGMENTS_DB, fragmentsDbProviders } from './fragments-db.js';
import { WorkspaceGate } from './workspace-gate.js';

/**
 * EXTENSION POINT for the enrichment pipeline (libs/fragments/src/enrichment): add its
 * modules to ENRICHMENT_IMPORTS and its providers to ENRICHMENT_PROVIDERS. They may inject
 * FRAGMENTS_DB (the module's one data-plane client, exported below).
 */
const ENRICHMENT_IMPORTS: NonNullable<ModuleMetadata['imports']> = [EnrichmentModule];
const ENRICHMENT_PROVIDERS: NonNullable<ModuleMetadata['providers']> = [...ENRICHMENT_SERVICE_PROVIDERS];

/** The service side of the fragments component: the handlers of kw.fragments.v1.FragmentsService. */
@Module({
  imports: [...ENRICHMENT_IMPORTS],
  providers: [
    ...fragmentsDbProviders,
    WorkspaceGate,
    FragmentTypeHandlers,
    FragmentHandlers,
    CollectionHandlers,
    ...ENRICHMENT_PROVIDERS,
  ],
  exports: [FRAGMENTS_DB],
})
export class FragmentsServiceModule {}
