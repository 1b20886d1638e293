export { UPSTREAM_ERROR, upstreamError } from './web-search.js';
export type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search.js';
export { SearxngProvider, type SearxngProviderOptions } from './searxng-provider.js';
export { ExaProvider, EXA_DEFAULT_URL, type ExaProviderOptions } from './exa-provider.js';
export { createWebSearchProvider, type WebSearchSettings } from './create-web-search-provider.js';
