import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isForbiddenAddress } from './forbidden-address.js';

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
}

const TEST_SETTING_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);

/** Why a URL may not be fetched, or null. Checks the scheme and every address the name resolves to. */
export async function refusedUrl(url: URL, policy: PublicFetchPolicy): Promise<string | null> {
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) return 'not HTTPS';
  if (url.username || url.password) return 'credentials in the URL';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = isIP(host)
    ? [host]
    : (await dns.lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) return 'the name does not resolve';
  for (const address of addresses) {
    const range = isForbiddenAddress(address);
    if (range && !(policy.allowPrivate && TEST_SETTING_RANGES.has(range))) return `address in the ${range} range`;
  }
  return null;
}

/**
 * fetch() for URLs a tenant or an operator configured (an identity provider's JWKS): only
 * public HTTPS destinations, no redirects, a size cap and a timeout, so the platform cannot be
 * pointed at its own network. The name is checked when the request is made; a resolver that
 * changes its answer between the check and the connection (DNS rebinding) is not pinned here.
 */
export async function publicFetch(
  input: string | URL,
  init: RequestInit,
  policy: PublicFetchPolicy,
): Promise<Response> {
  const url = new URL(String(input));
  const refused = await refusedUrl(url, policy);
  if (refused) throw new Error(`refused to fetch ${url.origin}: ${refused}`);
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    signal: init.signal ?? AbortSignal.timeout(policy.timeoutMs ?? 5_000),
  });
  if (response.status >= 300 && response.status < 400)
    throw new Error(`refused to follow a redirect from ${url.origin}`);
  const maxBytes = policy.maxBytes ?? 256 * 1024;
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`${url.origin} answers more than ${maxBytes} bytes`);
  }
  const body = new Uint8Array(await response.arrayBuffer());
  if (body.byteLength > maxBytes) throw new Error(`${url.origin} answered more than ${maxBytes} bytes`);
  return new Response(body, { status: response.status, headers: response.headers });
}
