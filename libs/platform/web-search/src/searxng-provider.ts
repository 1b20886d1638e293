import {
  endpoint,
  fetchProviderJson,
  resultsOf,
  searchDeadline,
  toResult,
  type WebSearchProvider,
  type WebSearchRequest,
  type WebSearchResult,
} from './web-search.js';

export interface SearxngProviderOptions {
  /** The SearXNG instance, e.g. http://searxng:8080 (a path prefix is kept; `user:password@` becomes Basic auth). */
  baseUrl: string;
  /** One deadline for the whole search, all pages included. */
  timeoutMs: number;
}

/** SearXNG answers about 10 results a page; more pages than this are not worth the wait. */
const MAX_PAGES = 3;

/**
 * A self-hosted SearXNG instance: `GET {baseUrl}/search?q=...&format=json&pageno=N`. The
 * instance must allow the json format (`search.formats` in its settings.yml), else it answers 403.
 *
 * - `type` is ignored: SearXNG is a keyword metasearch of other engines and has no neural or
 *   keyword mode to choose, so every type is answered the same way.
 * - `includeText`: SearXNG does not fetch the pages it finds, so there is no page text. The
 *   engines' short `content` excerpt is given as `text` (and as `snippet`); it is an excerpt of a
 *   few sentences at best, not the page.
 * - Pages are read until `numResults` results are collected, a page brings nothing new, or
 *   MAX_PAGES pages were read. Results repeated across pages are kept once (by URL).
 */
export class SearxngProvider implements WebSearchProvider {
  readonly id = 'searxng';
  private readonly searchUrl: URL;
  private readonly headers: Record<string, string> = {};

  constructor(private readonly options: SearxngProviderOptions) {
    const url = endpoint(options.baseUrl, 'search', 'the SearXNG URL');
    if (url.username || url.password) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.headers['authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    this.searchUrl = url;
  }

  async search(request: WebSearchRequest, options: { signal?: AbortSignal } = {}): Promise<WebSearchResult[]> {
    const deadline = searchDeadline(this.options.timeoutMs, options.signal);
    const found = new Map<string, WebSearchResult>();
    for (let page = 1; page <= MAX_PAGES && found.size < request.numResults; page++) {
      const url = new URL(this.searchUrl);
      url.searchParams.set('q', request.query);
      url.searchParams.set('format', 'json');
      url.searchParams.set('pageno', String(page));
      const body = await fetchProviderJson(this.id, url, { method: 'GET', headers: this.headers }, deadline);
      const before = found.size;
      for (const raw of resultsOf(this.id, body)) {
        const content = (raw as { content?: unknown } | null)?.content;
        const result = toResult(raw, { snippet: content, text: request.includeText ? content : undefined });
        if (result && !found.has(result.url)) found.set(result.url, result);
      }
      if (found.size === before) break;
    }
    return [...found.values()].slice(0, request.numResults);
  }
}
