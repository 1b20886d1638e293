import { KnowledgeApiError } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
}

/** One JSON request to a base URL with a bearer token; non-2xx answers throw KnowledgeApiError. */
export async function requestJson<T>(
  fetchImpl: FetchLike,
  baseUrl: string,
  token: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [key, value] of Object.entries(options.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetchImpl(url.toString(), {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok) throw new KnowledgeApiError(res.status, body);
  return body as T;
}
