/** The browser session cookie (HttpOnly) and its double-submit CSRF companion (readable by scripts). */
export const SESSION_COOKIE = 'kw_session';
export const CSRF_COOKIE = 'kw_csrf';
/** Header a browser sends with state-changing requests, equal to the kw_csrf cookie. */
export const CSRF_HEADER = 'x-csrf-token';

/** Parses a Cookie header; the first occurrence of a name wins, undecodable values are skipped. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name in cookies) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      // A malformed value is treated as absent.
    }
  }
  return cookies;
}

export interface CookieOptions {
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'Lax' | 'Strict' | 'None';
  path?: string;
  /** Seconds; 0 deletes the cookie. */
  maxAge?: number;
  expires?: Date;
}

/** One Set-Cookie header value. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? '/'}`];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${Math.floor(options.maxAge)}`);
  if (options.expires) parts.push(`Expires=${options.expires.toUTCString()}`);
  if (options.httpOnly) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  if (options.sameSite) parts.push(`SameSite=${options.sameSite}`);
  return parts.join('; ');
}

/**
 * Cookies are marked Secure except for plain-HTTP development on this machine: browsers
 * drop Secure cookies set over http://localhost in some versions, which would make local
 * sign-in impossible.
 */
export function isLocalHost(hostHeader: string | undefined): boolean {
  const host = (hostHeader ?? '')
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return host === 'localhost' || host === '127.0.0.1' || host === '::1';
}
