import { oauthError } from '../domain/agent-auth/oauth-errors.js';
import { JWT_MAX_LENGTH } from './dto/agent-auth.dto.js';

/**
 * The parameters of an OAuth 2.0 request body (form-encoded, or a JSON object of strings).
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
