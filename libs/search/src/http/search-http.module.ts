import { Module } from '@nestjs/common';
import { GraphController } from './graph.controller.js';
import { ListingController } from './listing.controller.js';
import { SavedSearchesController } from './saved-searches.controller.js';
import { SearchAnalyticsController } from './search-analytics.controller.js';
import { SearchController } from './search.controller.js';

/** The HTTP side of the search component, composed into the gateway. */
// Specific paths (api/search/saved, api/search/analytics) do not clash with api/search's GETs.
@Module({
  controllers: [
    SearchController,
    SavedSearchesController,
    SearchAnalyticsController,
    ListingController,
    GraphController,
  ],
})
export class SearchHttpModule {}
