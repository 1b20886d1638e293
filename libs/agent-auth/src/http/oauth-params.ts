import { oauthError } from '../domain/agent-auth/oauth-errors.js';
import { JWT_MAX_LENGTH } from './dto/agent-auth.dto.js';

/**
 * The parameters of an OAuth 2.0 request body (form-encoded: the edge refuses any other type).
 * Unknown parameters are ignored (RFC 6749 §3.2); a known one must be a string of sane length.
 */
export function oauthParams<K extends string>(body: unknown, names: readonly K[]): Partial<Record<K, string>> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded parameters');
  const params: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = (body as Record<string, unknown>)[name];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string' || value.length > JWT_MAX_LENGTH)
      throw oauthError('invalid_request', `${name} must be a string of at most ${JWT_MAX_LENGTH} characters`);
    params[name] = value;
  }
  return params;
}

/**
 * The client authentication a token request carries (RFC 6749 §2.3.1): HTTP Basic
 * (`client_secret_basic`, form-urlencoded id and secret), the body's client_id and
 * client_secret (`client_secret_post`), or client_id alone (`none`, a public client). Using two
 * methods at once is refused.
 */
export function clientCredentials(
  authorization: string | undefined,
  params: { client_id?: string; client_secret?: string },
): { clientAuthMethod: string; clientId?: string; clientSecret?: string } {
  const basic = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
  if (authorization !== undefined && !basic)
    throw oauthError('invalid_request', 'The token endpoint takes HTTP Basic client authentication only');
  if (basic) {
    if (params.client_secret !== undefined) throw oauthError('invalid_request', 'Use one client authentication method');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthError('invalid_client', 'Malformed Basic credentials', 401);
    const clientId = safeDecode(decoded.slice(0, colon));
    if (params.client_id !== undefined && params.client_id !== clientId)
      throw oauthError('invalid_request', 'client_id differs from the Basic credentials');
    return { clientAuthMethod: 'client_secret_basic', clientId, clientSecret: safeDecode(decoded.slice(colon + 1)) };
  }
  if (params.client_secret !== undefined)
    return { clientAuthMethod: 'client_secret_post', clientId: params.client_id, clientSecret: params.client_secret };
  if (params.client_id !== undefined) return { clientAuthMethod: 'none', clientId: params.client_id };
  return { clientAuthMethod: '' };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw oauthError('invalid_client', 'Malformed Basic credentials', 401);
  }
}
