import { defineComponent } from '@kw/platform-runtime';
import { SearchHttpModule } from './http/search-http.module.js';
import { SearchServiceModule } from './service/search-service.module.js';

/** The search component (data plane): workspace search, saved searches and search analytics. */
export const searchComponent = defineComponent({
  name: 'search',
  planes: ['data'],
  module: SearchServiceModule,
  httpModule: SearchHttpModule,
});
