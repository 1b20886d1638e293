import { Module } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import { APP_CONFIG } from '@kw/platform-runtime';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { VectorIndexSyncWorker } from '../events/vector-sync.worker.js';
import { AgenticRepository } from '../persistence/agentic.repository.js';
import { GraphRepository } from '../persistence/graph.repository.js';
import { ListingRepository } from '../persistence/listing.repository.js';
import { SavedSearchesRepository } from '../persistence/saved-searches.repository.js';
import { SEARCH_DB, searchDbProviders } from '../persistence/search-database.js';
import { SearchQueriesRepository } from '../persistence/search-queries.repository.js';
import { SearchRepository } from '../persistence/search.repository.js';
import { VectorSyncRepository } from '../persistence/vector-sync.repository.js';
import { ChunkVectorsRepository } from '../persistence/vectors/chunk-vectors.repository.js';
import { AgenticSearchHandlers } from './agentic/agentic-search.handlers.js';
import { SearchAnalyticsHandlers } from './analytics/search-analytics.handlers.js';
import { SearchQueryLog } from './analytics/search-query-log.js';
import { GraphHandlers } from './graph/graph.handlers.js';
import { ListFragmentsHandlers } from './listing/list-fragments.handlers.js';
import { CandidateReranking, rerankerProvider } from './retrieval/candidate-reranking.js';
import { CorpusStatisticsCache } from './retrieval/corpus-statistics-cache.js';
import { FragmentSearch } from './retrieval/fragment-search.js';
import { SearchHandlers } from './retrieval/search.handlers.js';
import { SavedSearchesHandlers } from './saved/saved-searches.handlers.js';
import { SearchPurgeHandlers } from './purge/search-purge.handlers.js';
import { SearchPurgeRepository } from '../persistence/workspace-purge.repository.js';
import { vectorIndexProvider, vectorIndexSyncProvider } from './vector/select-vector-index.js';
import { VectorIndexWarmup } from './vector/vector-index-warmup.js';

/** The service side of the search component: the handlers of kw.search.v1.*. */
@Module({
  providers: [
    ...searchDbProviders,
    SearchRepository,
    SearchQueriesRepository,
    SavedSearchesRepository,
    ListingRepository,
    GraphRepository,
    AgenticRepository,
    VectorSyncRepository,
    ChunkVectorsRepository,
    WorkspaceGate,
    // Query embeddings come from the provider that embedded the chunks (same configuration).
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    vectorIndexProvider,
    vectorIndexSyncProvider,
    VectorIndexSyncWorker,
    VectorIndexWarmup,
    CorpusStatisticsCache,
    rerankerProvider,
    CandidateReranking,
    FragmentSearch,
    SearchQueryLog,
    SearchHandlers,
    SavedSearchesHandlers,
    SearchAnalyticsHandlers,
    ListFragmentsHandlers,
    AgenticSearchHandlers,
    GraphHandlers,
    SearchPurgeRepository,
    SearchPurgeHandlers,
  ],
  exports: [SEARCH_DB, WorkspaceGate],
})
export class SearchServiceModule {}
