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
// credential are therefore refused; other query parameters are kept and sent. A name is read
// as its words (split at -, _, ., digits and camelCase: `private_key`, `clientSecret`) and as
// one run of letters (`accesstoken`). Refused: a credential word anywhere (`jwt_id`), a word
// that names a credential at the end only (`private_key`, `x-auth`, but not `key_id`), or a run
// of letters that is or ends like one. `keyword`, `monkey`, `passage` or `author` are not.
const CREDENTIAL_WORDS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwd',
  'pass',
  'passphrase',
  'pwd',
  'jwt',
  'signature',
  'credential',
  'credentials',
  'bearer',
  'apikey',
  'accesskey',
  'privatekey',
]);
const CREDENTIAL_LAST_WORDS = new Set([
  'key',
  'keys',
  'sig',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'pw',
  'otp',
]);
const CREDENTIAL_SUFFIXES = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'accesskey',
  'privatekey',
  'secretkey',
  'signingkey',
  'signature',
  'jwt',
  'sessionid', // jsessionid
  'sessid', // phpsessid
];

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
  for (const name of url.searchParams.keys()) refuseCredentialParameter(name, 'query');
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

function refuseCredentialParameter(name: string, where: 'query' | 'path'): void {
  if (looksLikeCredential(name))
    throw new TargetRefusedError(
      'query-credentials',
      `${where} parameter "${name}" looks like a credential; receivers authenticate deliveries by their signature`,
    );
}

/**
 * The parameter names of a URL as receivers may read them: the query split at `&` and also at
 * `;` (Rack before 3, Python's parse_qs before 3.9.2 and others still split there), and the
 * path parameters of every segment (`/hook;jsessionid=...`, read by Java servlet containers).
 * Names are percent-decoded like the query's (`%74oken` is `token`).
 */
function parameterNames(url: URL): Array<{ name: string; where: 'query' | 'path' }> {
  const names: Array<{ name: string; where: 'query' | 'path' }> = [];
  for (const name of new URLSearchParams(url.search.replaceAll(';', '&')).keys()) names.push({ name, where: 'query' });
  for (const segment of url.pathname.split('/')) {
    const params = segment.split(';').slice(1);
    if (params.length === 0) continue;
    for (const name of new URLSearchParams(params.join('&')).keys()) names.push({ name, where: 'path' });
  }
  return names;
}

/** Whether a query parameter name reads like a credential (see CREDENTIAL_WORDS). */
export function looksLikeCredential(param: string): boolean {
  const words = param
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  if (words.some((w) => CREDENTIAL_WORDS.has(w))) return true;
  if (CREDENTIAL_LAST_WORDS.has(words[words.length - 1])) return true;
  const letters = words.join('');
  return (
    CREDENTIAL_WORDS.has(letters) ||
    CREDENTIAL_LAST_WORDS.has(letters) ||
    CREDENTIAL_SUFFIXES.some((s) => letters.endsWith(s))
  );
}

/**
 * The rules for the text of a target URL, checked when one is configured (not at delivery: a
 * URL stored before these rules still delivers as it did). What is stored and shown must be the
 * URL deliveries use: URL parsing would silently drop control characters (CR, LF, tab...) and
 * encode spaces, and never sends a fragment, so a URL with either is refused rather than
 * stored unlike what is used.
 */
export function checkTargetText(rawUrl: string): void {
  if (/[\u0000-\u0020\u007f-\u009f]/.test(rawUrl))
    throw new TargetRefusedError(
      'invalid-url',
      'the URL must not contain spaces or control characters (such as CR or LF)',
    );
  if (rawUrl.includes('#'))
    throw new TargetRefusedError(
      'fragment',
      'the URL must not have a fragment (#...): it is never sent to the receiver',
    );
  // Credentials after ";" and in path parameters: refused when configured (checkTarget, at
  // every delivery, reads the query split at "&" only, so a URL stored before still delivers).
  let url: URL | undefined;
  try {
    url = new URL(rawUrl);
  } catch {
    return; // checkTarget says why
  }
  for (const { name, where } of parameterNames(url)) refuseCredentialParameter(name, where);
}

/**
 * The URL as written must be the URL deliveries use: one that URL parsing would rewrite
 * (backslashes or missing slashes after the scheme, upper case in the scheme or host, full-width
 * digits, an IDN host not in punycode, `..` segments, the default `:443`, non-ASCII or other
 * characters it percent-encodes, address forms such as octal) is refused, naming the form to
 * write instead. Only one rewrite is harmless and accepted as written: an empty path, which is
 * sent as `/` either way. Checked when a webhook is configured, after checkTarget (so a
 * non-public address is refused as such first); an unparseable URL is left to checkTarget.
 */
export function checkTargetCanonical(rawUrl: string): void {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return;
  }
  if (url.href === rawUrl) return;
  if (url.pathname === '/' && `${url.protocol}//${url.host}${url.search}` === rawUrl) return;
  const canonical = url.href.length > 300 ? `${url.href.slice(0, 300)}...` : url.href;
  throw new TargetRefusedError('not-canonical', `the URL must be written as deliveries would use it: ${canonical}`);
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
