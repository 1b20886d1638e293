import { AppError, ErrorCode } from '@kw/platform-errors';
import type { RateLimitResult } from './rate-limiter.js';

/**
 * Response headers for a rate-limited route, named as in the IETF draft
 * (draft-ietf-httpapi-ratelimit-headers): sent on every answer, plus `Retry-After` on a 429.
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(result.limit),
    'RateLimit-Remaining': String(result.remaining),
    'RateLimit-Reset': String(result.resetSeconds),
  };
  if (!result.allowed) headers['Retry-After'] = String(result.retryAfterSeconds);
  return headers;
}

/**
 * The 429 for a refused hit. The HTTP error responder turns `details.retryAfterSeconds` into
 * the `Retry-After` header; the RateLimit-* headers are the caller's to set on the reply.
 */
export function rateLimitedError(result: RateLimitResult): AppError {
  const seconds = result.retryAfterSeconds;
  return new AppError({
    status: 429,
    code: ErrorCode.RATE_LIMITED,
    message: `Rate limit exceeded; retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
    details: { retryAfterSeconds: seconds },
  });
}
