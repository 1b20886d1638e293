import { ExaProvider } from './exa-provider.js';
import { SearxngProvider } from './searxng-provider.js';
import type { WebSearchProvider } from './web-search.js';

export interface WebSearchSettings {
  /** WEB_SEARCH_PROVIDER. Unset: no web search (the route answers 502). */
  provider?: 'searxng' | 'exa';
  /** WEB_SEARCH_URL: the SearXNG instance (required), or another Exa endpoint (optional). */
  url?: string;
  /** WEB_SEARCH_API_KEY: required by Exa, unused by SearXNG. */
  apiKey?: string;
  /** WEB_SEARCH_TIMEOUT_MS: the deadline of one search. */
  timeoutMs: number;
}

/**
 * The configured web search provider, or undefined when none is configured. Throws an Error
 * naming the missing setting when the configuration is incomplete, so a deployment fails at start
 * rather than at the first search.
 */
export function createWebSearchProvider(settings: WebSearchSettings): WebSearchProvider | undefined {
  if (!settings.provider) return undefined;
  if (!Number.isFinite(settings.timeoutMs) || settings.timeoutMs <= 0)
    throw new Error(`the web search timeout must be a positive number of milliseconds (got ${settings.timeoutMs})`);
  switch (settings.provider) {
    case 'searxng':
      if (!settings.url)
        throw new Error(
          'WEB_SEARCH_PROVIDER=searxng needs WEB_SEARCH_URL, the URL of the SearXNG instance (e.g. http://searxng:8080)',
        );
      return new SearxngProvider({ baseUrl: settings.url, timeoutMs: settings.timeoutMs });
    case 'exa':
      if (!settings.apiKey) throw new Error('WEB_SEARCH_PROVIDER=exa needs WEB_SEARCH_API_KEY, the Exa API key');
      return new ExaProvider({ apiKey: settings.apiKey, baseUrl: settings.url, timeoutMs: settings.timeoutMs });
    default:
      throw new Error(`unknown web search provider "${String(settings.provider satisfies never)}"`);
  }
}
