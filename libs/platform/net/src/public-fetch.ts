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
  const form = refusedUrlForm(url, policy);
  if (form) return form;
  const host = bareHost(url);
  const addresses = isIP(host)
    ? [host]
    : (await dns.lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) return 'the name does not resolve';
  for (const address of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) return refused;
  }
  return null;
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
