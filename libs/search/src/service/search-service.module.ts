import { Module, type ModuleMetadata } from '@nestjs/common';
import { AGENTIC_PROVIDERS } from './agentic/index.js';
import { GRAPH_PROVIDERS } from './graph/index.js';
import { LISTING_PROVIDERS } from './listing/index.js';
import type { AppConfig } from '@kw/platform-config';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import { APP_CONFIG } from '@kw/platform-runtime';
import { SearchAnalyticsHandlers } from './analytics/search-analytics.handlers.js';
import { SearchQueryLog } from './analytics/query-log.js';
import { FragmentSearch } from './retrieval/fragment-search.js';
import { SearchHandlers } from './retrieval/search.handlers.js';
import { SavedSearchHandlers } from './saved/saved-searches.handlers.js';
import { SEARCH_DB, searchDbProviders } from '../persistence/search-database.js';
import { vectorIndexProvider, vectorIndexSyncProvider } from './vector/select-vector-index.js';
import { VectorIndexSyncWorker } from '../events/vector-sync.worker.js';
import { VectorIndexWarmup } from './vector/vector-index-warmup.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';

/**
 * EXTENSION POINTS: other search features (listing, agentic, graph) append their modules to
 * SEARCH_IMPORTS and their handler providers to SEARCH_PROVIDERS. They may inject SEARCH_DB
 * (the module's one data-plane client) and WorkspaceGate, both exported below.
 */
const SEARCH_IMPORTS: NonNullable<ModuleMetadata['imports']> = [];
const SEARCH_PROVIDERS: NonNullable<ModuleMetadata['providers']> = [
  ...LISTING_PROVIDERS,
  ...AGENTIC_PROVIDERS,
  ...GRAPH_PROVIDERS,
];

/** The service side of the search component: the handlers of kw.search.v1.*. */
@Module({
  imports: [...SEARCH_IMPORTS],
  providers: [
    ...searchDbProviders,
    WorkspaceGate,
    // Query embeddings come from the provider that embedded the chunks (same configuration).
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    vectorIndexProvider,
    vectorIndexSyncProvider,
    VectorIndexSyncWorker,
    VectorIndexWarmup,
    FragmentSearch,
    SearchQueryLog,
    SearchHandlers,
    SavedSearchHandlers,
    SearchAnalyticsHandlers,
    ...SEARCH_PROVIDERS,
  ],
  exports: [SEARCH_DB, WorkspaceGate],
})
export class SearchServiceModule {}
