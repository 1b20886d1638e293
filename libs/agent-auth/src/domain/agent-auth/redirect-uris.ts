/**
 * Redirect URIs an application may register (OAuth 2.1 §2.3.1, RFC 8252 for native apps):
 * HTTPS; plain HTTP only to a loopback address (`127.0.0.1`, `[::1]`, `localhost`), whose port
 * may differ at authorization time (RFC 8252 §7.3); or a private-use scheme in reverse-domain
 * form (`com.example.app:/callback`, RFC 8252 §7.1). Never a fragment or credentials.
 */
export const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PRIVATE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/** Why a redirect URI cannot be registered, or null. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return isLoopback(url) ? null : 'must be https (plain http only to a loopback address)';
  if (PRIVATE_SCHEME.test(url.protocol)) return null;
  return 'must be https, http to a loopback address, or a reverse-domain private scheme';
}

function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * The registered URI a request's redirect_uri matches: exactly (string comparison), except that
 * a loopback http URI matches on any port.
 */
export function matchRedirectUri(registered: readonly string[], requested: string): string | undefined {
  if (registered.includes(requested)) return requested;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !isLoopback(url)) return undefined;
  return registered.find((r) => {
    const candidate = new URL(r);
    if (candidate.protocol !== 'http:' || !isLoopback(candidate)) return false;
    candidate.port = url.port;
    return candidate.href === url.href;
  })
    ? requested
    : undefined;
}
