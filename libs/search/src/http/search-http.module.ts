import { Module, type ModuleMetadata } from '@nestjs/common';
import { SearchAnalyticsController } from './search-analytics.controller.js';
import { SearchController } from './search.controller.js';
import { SavedSearchesController } from './saved-searches.controller.js';
import { GRAPH_CONTROLLERS } from '../service/graph/index.js';
import { LISTING_CONTROLLERS } from '../service/listing/index.js';

/** EXTENSION POINT: other search features append their HTTP controllers here. */
const SEARCH_CONTROLLERS: NonNullable<ModuleMetadata['controllers']> = [...LISTING_CONTROLLERS, ...GRAPH_CONTROLLERS];

/** The HTTP side of the search component, composed into the gateway. */
// Specific paths (api/search/saved, api/search/analytics) do not clash with api/search's GETs.
@Module({ controllers: [SearchController, SavedSearchesController, SearchAnalyticsController, ...SEARCH_CONTROLLERS] })
export class SearchHttpModule {}
