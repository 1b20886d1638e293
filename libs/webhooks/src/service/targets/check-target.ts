import { isIP } from 'node:net';
import { defaultLookupAll, isForbiddenAddress, type LookupAll, type ResolvedAddress } from '@kw/platform-net';
import { TargetRefusedError } from './target-refused.error.js';

export interface TargetPolicy {
  /**
   * TEST SETTING (WEBHOOKS_ALLOW_PRIVATE_TARGETS): lets loopback, private and unique-local
   * targets through so tests can run a receiver on this machine. Scheme, credential and all
   * other range rules still apply. Off in production.
   */
  allowPrivateTargets: boolean;
  /** How long name resolution may take before the target is refused. Default 5 s. */
  dnsTimeoutMs?: number;
}

export { defaultLookupAll, type LookupAll, type ResolvedAddress };

/** A target that passed every rule, with the addresses that were checked: deliveries connect only to these. */
export interface CheckedTarget {
  url: URL;
  /** Host name without IPv6 brackets; used for SNI and certificate verification. */
  hostname: string;
  port: number;
  addresses: ResolvedAddress[];
}

const DEFAULT_DNS_TIMEOUT_MS = 5_000;

// Ranges the test setting opens: enough for a receiver on this machine or a private test
// network, never link-local (cloud metadata), multicast, unspecified or reserved space.
const TEST_SETTING_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);

// The spec: "credentials in the query string are not used". Target URLs are stored, shown in
// the API and written to delivery logs, so a secret in the query would leak there; receivers
// authenticate deliveries by their signature instead. Parameter names that look like a
// credential are therefore refused (compared lower-case with - and _ removed). Other query
// parameters are kept and sent.
const CREDENTIAL_PARAM_EXACT = new Set([
  'key',
  'sig',
  'auth',
  'pwd',
  'passwd',
  'credential',
  'credentials',
  'authorization',
  'bearer',
  'session',
  'sessionid',
]);
const CREDENTIAL_PARAM_SUFFIXES = ['token', 'secret', 'password', 'apikey', 'accesskey', 'signature'];

/**
 * Parses and checks a webhook target URL; throws TargetRefusedError with the reason.
 * Run it when a webhook is configured and again before every delivery (DNS may have changed),
 * then deliver with sendToTarget, which connects only to the addresses checked here.
 */
export async function checkTarget(
  rawUrl: string,
  policy: TargetPolicy,
  lookup: LookupAll = defaultLookupAll,
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TargetRefusedError('invalid-url', 'not a valid absolute URL');
  }
  if (url.protocol !== 'https:') throw new TargetRefusedError('scheme', 'only https:// URLs are accepted');
  if (url.username !== '' || url.password !== '')
    throw new TargetRefusedError('credentials', 'the URL must not contain a user name or password');
  for (const name of url.searchParams.keys()) {
    if (looksLikeCredential(name)) {
      throw new TargetRefusedError(
        'query-credentials',
        `query parameter "${name}" looks like a credential; receivers authenticate deliveries by their signature`,
      );
    }
  }
  // WHATWG parsing already turned 0177.0.0.1, 0x7f.1 and 2130706433 into 127.0.0.1 and
  // lower-cased the host; an https URL always has a non-empty host.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') throw new TargetRefusedError('invalid-url', 'the URL has no host');
  if (url.port === '0') throw new TargetRefusedError('port', 'port 0 is not a valid destination');
  url.hash = ''; // never sent anyway; dropped so stored and logged URLs carry no fragment

  const name = hostname.replace(/\.$/, '');
  if ((name === 'localhost' || name.endsWith('.localhost')) && !policy.allowPrivateTargets) {
    throw new TargetRefusedError('localhost', 'localhost is not an externally reachable host', 'loopback');
  }

  const literal = isIP(hostname);
  // A literal address is the destination itself: never sent to DNS.
  const addresses =
    literal !== 0
      ? [{ address: hostname, family: literal as 4 | 6 }]
      : await resolve(name, lookup, policy.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);

  for (const { address } of addresses) {
    const range = isForbiddenAddress(address);
    if (range !== null && !(policy.allowPrivateTargets && TEST_SETTING_RANGES.has(range))) {
      throw new TargetRefusedError(
        'address',
        literal !== 0 ? `${range} addresses are not externally reachable` : `the host resolves to a ${range} address`,
        range,
      );
    }
  }
  return { url, hostname, port: url.port === '' ? 443 : Number(url.port), addresses };
}

function looksLikeCredential(param: string): boolean {
  const name = param.toLowerCase().replace(/[-_]/g, '');
  return CREDENTIAL_PARAM_EXACT.has(name) || CREDENTIAL_PARAM_SUFFIXES.some((s) => name.endsWith(s));
}

/** Every address the name resolves to, deduplicated. A failure or a timeout is a refusal, never a skipped check. */
async function resolve(hostname: string, lookup: LookupAll, timeoutMs: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
  });
  let results: ResolvedAddress[];
  try {
    results = await Promise.race([lookup(hostname), timeout]);
  } catch {
    throw new TargetRefusedError('dns', `the host name "${hostname}" could not be resolved`);
  } finally {
    clearTimeout(timer);
  }
  const unique = new Map(results.map((r) => [r.address, r]));
  if (unique.size === 0) throw new TargetRefusedError('dns', `the host name "${hostname}" has no addresses`);
  return [...unique.values()];
}
