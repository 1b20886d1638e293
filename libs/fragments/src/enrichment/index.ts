export { EnrichmentModule } from './enrichment.module.js';
export { EnrichFragmentHandler } from './enrich-fragment.handler.js';
export { EnrichmentController } from './enrichment.controller.js';
export * from './enrichment-state.js';

import { EnrichFragmentHandler } from './enrich-fragment.handler.js';
/** Providers for the fragments service module itself (they use its WorkspaceGate and FRAGMENTS_DB). */
export const ENRICHMENT_SERVICE_PROVIDERS = [EnrichFragmentHandler];
