import {
  endpoint,
  fetchProviderJson,
  isRecord,
  resultsOf,
  searchDeadline,
  toResult,
  type WebSearchProvider,
  type WebSearchRequest,
  type WebSearchResult,
} from './web-search.js';

export interface ExaProviderOptions {
  apiKey: string;
  /** Defaults to https://api.exa.ai. */
  baseUrl?: string;
  timeoutMs: number;
}

export const EXA_DEFAULT_URL = 'https://api.exa.ai';
/** Page text asked of Exa per result when `includeText` is set. */
const TEXT_MAX_CHARACTERS = 5000;

/**
 * The hosted Exa API: `POST {baseUrl}/search` with the key in `x-api-key`. `type` is passed
 * through; with `includeText` Exa returns the page text (up to 5000 characters a result). The
 * snippet is Exa's first highlight, else its summary, when the answer has one.
 */
export class ExaProvider implements WebSearchProvider {
  readonly id = 'exa';
  private readonly searchUrl: URL;

  constructor(private readonly options: ExaProviderOptions) {
    if (!options.apiKey) throw new Error('the Exa web search provider needs an API key');
    this.searchUrl = endpoint(options.baseUrl ?? EXA_DEFAULT_URL, 'search', 'the Exa URL');
  }

  async search(request: WebSearchRequest, options: { signal?: AbortSignal } = {}): Promise<WebSearchResult[]> {
    const deadline = searchDeadline(this.options.timeoutMs, options.signal);
    const body = await fetchProviderJson(
      this.id,
      this.searchUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': this.options.apiKey },
        body: JSON.stringify({
          query: request.query,
          numResults: request.numResults,
          type: request.type,
          contents: request.includeText ? { text: { maxCharacters: TEXT_MAX_CHARACTERS } } : undefined,
        }),
      },
      deadline,
    );
    const results: WebSearchResult[] = [];
    const seen = new Set<string>();
    for (const raw of resultsOf(this.id, body)) {
      if (results.length >= request.numResults) break;
      const fields = isRecord(raw) ? raw : {};
      const highlight = Array.isArray(fields['highlights']) ? fields['highlights'][0] : undefined;
      const result = toResult(raw, {
        snippet: typeof highlight === 'string' && highlight ? highlight : fields['summary'],
        text: request.includeText ? fields['text'] : undefined,
      });
      if (result && !seen.has(result.url)) {
        seen.add(result.url);
        results.push(result);
      }
    }
    return results;
  }
}
