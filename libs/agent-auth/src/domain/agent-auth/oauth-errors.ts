import { AppError } from '@kw/platform-errors';

/** RFC 6749 §5.2 and RFC 8628 §3.5 error codes, carried as the AppError's code. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'invalid_target'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  // RFC 7591 §3.2.2: dynamic client registration.
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

/**
 * An error of the agent-auth protocol routes (/oauth2/*, /agent/identity*): the HTTP edge
 * renders it as `{error, error_description}` (docs/errors.md). Status 400 as RFC 6749 says;
 * 401 only for client authentication.
 */
export const oauthError = (code: OAuthErrorCode, description: string, status = 400): AppError =>
  new AppError({ status, code, message: description });

/** RFC 8935 §2.3 error codes of SET delivery. */
export type SetErrorCode =
  'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience' | 'authentication_failed' | 'access_denied';

/** A refused Security Event Token: 400 `{err, description}` (RFC 8935 §2.3). */
export const setError = (code: SetErrorCode, description: string): AppError =>
  new AppError({ status: 400, code, message: description });
