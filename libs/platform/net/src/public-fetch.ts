import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isForbiddenAddress } from './forbidden-address.js';
import { defaultLookupAll, pinnedLookup, type LookupAll, type ResolvedAddress } from './pinned-lookup.js';

export interface PublicFetchPolicy {
  /**
   * TEST SETTING: plain HTTP and loopback, private and unique-local addresses are allowed (a
   * test server on this machine). Link-local (cloud metadata), multicast and reserved space stay refused.
   */
  allowPrivate: boolean;
  /** Refused above this many bytes. Default 256 KiB. */
  maxBytes?: number;
  /** Default 5 s. */
  timeoutMs?: number;
  /** How names are resolved; default the system resolver (a stand-in in tests). */
  lookup?: LookupAll;
}

const TEST_SETTING_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);

/**
 * Why a URL may not be fetched, judged without DNS: its scheme, credentials, and a host that is
 * a literal address or a localhost name. For checking a URL when it is saved; a name can still
 * resolve to a private address, which refusedUrl (at fetch time) catches.
 */
export function refusedUrlForm(url: URL, policy: Pick<PublicFetchPolicy, 'allowPrivate'>): string | null {
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) return 'not HTTPS';
  if (url.username || url.password) return 'credentials in the URL';
  const host = bareHost(url);
  const name = host.replace(/\.$/, '');
  if ((name === 'localhost' || name.endsWith('.localhost')) && !policy.allowPrivate) return 'a loopback name';
  return isIP(host) ? refusedAddress(host, policy) : null;
}

/** Why a URL may not be fetched, or null. Checks the scheme and every address the name resolves to. */
export async function refusedUrl(url: URL, policy: PublicFetchPolicy): Promise<string | null> {
  const checked = await checkUrl(url, policy);
  return 'refused' in checked ? checked.refused : null;
}

/** The addresses a request to the URL may connect to, or why there are none. */
async function checkUrl(
  url: URL,
  policy: PublicFetchPolicy,
): Promise<{ refused: string } | { addresses: ResolvedAddress[] }> {
  const form = refusedUrlForm(url, policy);
  if (form) return { refused: form };
  const host = bareHost(url);
  const literal = isIP(host);
  const addresses =
    literal !== 0
      ? [{ address: host, family: literal as 4 | 6 }]
      : await (policy.lookup ?? defaultLookupAll)(host).catch(() => []);
  if (addresses.length === 0) return { refused: 'the name does not resolve' };
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) return { refused };
  }
  return { addresses };
}

function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function refusedAddress(address: string, policy: Pick<PublicFetchPolicy, 'allowPrivate'>): string | null {
  const range = isForbiddenAddress(address);
  return range && !(policy.allowPrivate && TEST_SETTING_RANGES.has(range)) ? `address in the ${range} range` : null;
}

/**
 * fetch() for URLs a tenant or an operator configured (an identity provider's JWKS): only
 * public HTTPS destinations, no redirects, a size cap and a timeout, so the platform cannot be
 * pointed at its own network. The name is resolved and its addresses checked when the request
 * is made, and the connection goes to those very addresses (pinnedLookup): a resolver that
 * changes its answer between the check and the connection (DNS rebinding) gains nothing. Bodies
 * are strings or bytes (what jose and the callers send).
 */
export async function publicFetch(
  input: string | URL,
  init: RequestInit,
  policy: PublicFetchPolicy,
): Promise<Response> {
  const url = new URL(String(input));
  const checked = await checkUrl(url, policy);
  if ('refused' in checked) throw new Error(`refused to fetch ${url.origin}: ${checked.refused}`);
  const maxBytes = policy.maxBytes ?? 256 * 1024;
  const signal = init.signal ?? AbortSignal.timeout(policy.timeoutMs ?? 5_000);
  const { status, headers, body } = await exchange(url, init, checked.addresses, maxBytes, signal);
  if (status >= 300 && status < 400) throw new Error(`refused to follow a redirect from ${url.origin}`);
  return new Response(NULL_BODY_STATUSES.has(status) ? null : body, { status, headers });
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** One HTTP exchange with a connection to the checked addresses only; the body read up to maxBytes. */
function exchange(
  url: URL,
  init: RequestInit,
  addresses: ResolvedAddress[],
  maxBytes: number,
  signal: AbortSignal,
): Promise<Answer> {
  const body = init.body;
  if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))
    return Promise.reject(new Error('publicFetch sends string or byte bodies only'));
  const host = bareHost(url);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const options: https.RequestOptions = {
    method: init.method ?? 'GET',
    host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    agent: false,
    lookup: pinnedLookup(addresses),
    signal,
    ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
  };
  return new Promise<Answer>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(options, (response) => {
      const status = response.statusCode ?? 0;
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers))
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
          answerHeaders.append(name, one);
      if (status >= 300 && status < 400) {
        response.destroy();
        resolve({ status, headers: answerHeaders, body: new Uint8Array() });
        return;
      }
      if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
        reject(new Error(`${url.origin} answers more than ${maxBytes} bytes`)); // before destroy's own events
        response.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > maxBytes) {
          reject(new Error(`${url.origin} answered more than ${maxBytes} bytes`));
          response.destroy();
        } else chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({ status, headers: answerHeaders, body: new Uint8Array(Buffer.concat(chunks)) }),
      );
      response.on('error', reject);
      response.on('aborted', () => reject(new Error(`${url.origin} closed the connection mid-answer`)));
    });
    request.on('error', reject);
    request.end(body ?? undefined);
  });
}
