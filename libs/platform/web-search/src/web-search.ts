import { AppError } from '@kw/platform-errors';

/** One search of `POST /api/v1/web/search`, already validated by the route. */
export interface WebSearchRequest {
  query: string;
  /** The most results wanted; providers answer at most this many. */
  numResults: number;
  type: 'neural' | 'keyword' | 'auto';
  /** Ask for the page text (`WebSearchResult.text`) where the provider can give it. */
  includeText: boolean;
}

export interface WebSearchResult {
  title: string;
  /** Always an absolute http(s) URL: results without one are dropped. */
  url: string;
  snippet?: string;
  text?: string;
  publishedDate?: string;
  score?: number;
}

/**
 * The port to a web search provider. `search` answers at most `numResults` results and rejects
 * with a 502 UPSTREAM_ERROR AppError when the provider fails (see `upstreamError`); when the
 * caller's signal aborts, it rejects with the signal's reason instead.
 */
export interface WebSearchProvider {
  readonly id: string;
  search(request: WebSearchRequest, options?: { signal?: AbortSignal }): Promise<WebSearchResult[]>;
}

export const UPSTREAM_ERROR = 'UPSTREAM_ERROR';

/**
 * The error of a failed provider call. `reason` is a short fixed text made here (an HTTP status,
 * "timed out", ...), never a response body or an underlying error message, so no key, URL
 * credential or stack can reach a client through it.
 */
export function upstreamError(providerId: string, reason: string): AppError {
  return new AppError({
    status: 502,
    code: UPSTREAM_ERROR,
    message: `The web search provider "${providerId}" failed: ${reason}`,
  });
}

/** One deadline for a whole search (all its pages), ended early by the caller's signal too. */
export interface SearchDeadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly timeout: AbortSignal;
  readonly caller?: AbortSignal;
}

export function searchDeadline(timeoutMs: number, caller?: AbortSignal): SearchDeadline {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: caller ? AbortSignal.any([caller, timeout]) : timeout, timeoutMs, timeout, caller };
}

/**
 * Fetches and parses a JSON answer of a provider, turning every failure into `upstreamError`.
 * Redirects are not followed (`redirect: 'manual'` answers the 3xx, reported as a failure): a
 * redirect to another host would otherwise carry custom headers such as an API key with it.
 */
export async function fetchProviderJson(
  providerId: string,
  url: URL,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  deadline: SearchDeadline,
): Promise<unknown> {
  let text: string;
  try {
    const res = await fetch(url, {
      method: init.method,
      headers: { accept: 'application/json', ...init.headers },
      body: init.body,
      redirect: 'manual',
      signal: deadline.signal,
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw upstreamError(providerId, `HTTP ${res.status}`);
    }
    // The deadline also covers reading the body: an answer that stalls midway times out too.
    text = await res.text();
  } catch (err) {
    throw failureOf(providerId, err, deadline);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw upstreamError(providerId, 'malformed response (not JSON)');
  }
}

function failureOf(providerId: string, err: unknown, deadline: SearchDeadline): unknown {
  if (deadline.caller?.aborted) return deadline.caller.reason;
  if (AppError.isAppError(err)) return err;
  if (deadline.timeout.aborted) return upstreamError(providerId, `no answer within ${deadline.timeoutMs} ms`);
  // fetch rejects with TypeError('fetch failed') whose cause carries a system code (ECONNREFUSED, ...).
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return upstreamError(
    providerId,
    typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)
      ? `connection failed (${code})`
      : 'connection failed',
  );
}

/** The `results` array of a provider answer, or a malformed-response failure. */
export function resultsOf(providerId: string, body: unknown): unknown[] {
  const results = isRecord(body) ? body['results'] : undefined;
  if (!Array.isArray(results)) throw upstreamError(providerId, 'malformed response (no results list)');
  return results;
}

/**
 * A provider's result as a WebSearchResult, or undefined when it has no usable http(s) URL.
 * Fields of the wrong type are left out; a missing title falls back to the URL.
 */
export function toResult(
  raw: unknown,
  fields: { snippet?: unknown; text?: unknown } = {},
): WebSearchResult | undefined {
  if (!isRecord(raw)) return undefined;
  const url = httpUrl(raw['url']);
  if (!url) return undefined;
  const title = typeof raw['title'] === 'string' && raw['title'].trim() ? raw['title'] : url;
  const result: WebSearchResult = { title, url };
  if (typeof fields.snippet === 'string' && fields.snippet) result.snippet = fields.snippet;
  if (typeof fields.text === 'string' && fields.text) result.text = fields.text;
  if (typeof raw['publishedDate'] === 'string' && raw['publishedDate']) result.publishedDate = raw['publishedDate'];
  if (typeof raw['score'] === 'number' && Number.isFinite(raw['score'])) result.score = raw['score'];
  return result;
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `base` (which may end with a path, e.g. http://host/searxng/) joined with `path`; `what` names it in errors. */
export function endpoint(base: string, path: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`${what} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${what} must be an http(s) URL`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.search = '';
  url.hash = '';
  return url;
}
