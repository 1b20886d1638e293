import { KnowledgeApiError } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Bytes sent as they are (an archive), instead of a JSON `body`. */
  bytes?: { data: Uint8Array; contentType: string };
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
  const res = await send(fetchImpl, baseUrl, token, path, options, 'application/json');
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok) throw new KnowledgeApiError(res.status, body);
  return body as T;
}

/** One request whose answer is bytes (an archive download); non-2xx answers throw KnowledgeApiError. */
export async function requestBytes(
  fetchImpl: FetchLike,
  baseUrl: string,
  token: string,
  path: string,
): Promise<Uint8Array> {
  const res = await send(fetchImpl, baseUrl, token, path, {}, '*/*');
  if (!res.ok) {
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { error: text };
    }
    throw new KnowledgeApiError(res.status, body);
  }
  return new Uint8Array(await res.arrayBuffer());
}

function send(
  fetchImpl: FetchLike,
  baseUrl: string,
  token: string,
  path: string,
  options: RequestOptions,
  accept: string,
): Promise<Response> {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [key, value] of Object.entries(options.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept };
  let body: RequestInit['body'];
  if (options.bytes) {
    headers['content-type'] = options.bytes.contentType;
    body = options.bytes.data as unknown as RequestInit['body'];
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return fetchImpl(url.toString(), { method: options.method ?? 'GET', headers, body });
}
