import { randomUUID } from 'node:crypto';
import { HttpException } from '@nestjs/common';
import { AppError, ErrorCode, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@kw/platform-errors';

/**
 * The one mapping from anything thrown to what the client sees. Two body shapes exist
 * (spec: Errors): OpenAI-compatible routes under /api/v1 answer {error:{message,type,code,param}};
 * every other route answers {error, code, ...details}.
 */
export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** Set for unexpected failures: logged with the cause, shown to the client, nothing else. */
  /** The platform's error code, whatever the body's shape (for the log line). */
  code: string;
  errorId?: string;
  cause?: unknown;
}

const OPENAI_PREFIX = '/api/v1/';

/** Fastify's own error codes for malformed requests, mapped to ours. */
const FASTIFY_CODES: Record<string, { status: number; code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: ErrorCode.INVALID_JSON,
    message: 'The request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: ErrorCode.INVALID_JSON,
    message: 'The request body is empty but Content-Type is application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: 'The request body is too large',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: 'Unsupported Content-Type',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: ErrorCode.BAD_REQUEST,
    message: 'Content-Length does not match the body',
  },
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.SERVICE_UNAVAILABLE,
  504: ErrorCode.SERVICE_TIMEOUT,
};

/** Normalises anything thrown into an AppError, or undefined for an unexpected failure. */
export function toAppError(err: unknown): AppError | undefined {
  if (AppError.isAppError(err)) return err;
  // Nest wraps Fastify's 4xx errors in an HttpException whose cause is the original.
  if (err instanceof HttpException && err.cause && typeof (err.cause as { code?: unknown }).code === 'string') {
    const fromCause = toAppError(err.cause);
    if (fromCause) return fromCause;
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    const message =
      typeof response === 'string' ? response : String((response as { message?: unknown }).message ?? err.message);
    return new AppError({
      status,
      code: STATUS_CODES[status] ?? (status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.BAD_REQUEST),
      message,
    });
  }
  const fastifyError = err as { code?: string; statusCode?: number; message?: string } | null;
  if (fastifyError && typeof fastifyError.code === 'string' && FASTIFY_CODES[fastifyError.code]) {
    const known = FASTIFY_CODES[fastifyError.code];
    return new AppError({
      status: known.status,
      code: known.code,
      message: known.message ?? fastifyError.message ?? known.code,
    });
  }
  // JSON.parse failures surface as SyntaxError with statusCode 400 from Fastify's parser.
  if (err instanceof SyntaxError && fastifyError?.statusCode === 400) {
    return new AppError({ status: 400, code: ErrorCode.INVALID_JSON, message: 'The request body is not valid JSON' });
  }
  if (
    fastifyError &&
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return new AppError({
      status: fastifyError.statusCode,
      code: STATUS_CODES[fastifyError.statusCode] ?? ErrorCode.BAD_REQUEST,
      message: fastifyError.message ?? 'Bad request',
    });
  }
  return undefined;
}

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

export function isOpenAiRoute(url: string): boolean {
  return url.startsWith(OPENAI_PREFIX) || url === '/api/v1';
}

/** The agent authentication protocol routes, which answer RFC 6749 §5.2 errors. */
export function isOAuthRoute(url: string): boolean {
  const path = url.split('?')[0];
  return path.startsWith('/oauth2/') || path === '/agent/identity' || path === '/agent/identity/claim';
}

/** SET delivery (RFC 8935), which answers `{err, description}`. */
export const SET_DELIVERY_ROUTE = '/agent/event/notify';

const OAUTH_CODE = /^[a-z_]+$/;

/** An error code of the protocol: the AppError's own when it is one (lower snake case), else by status. */
function protocolCode(appError: AppError, byStatus: (status: number) => string): string {
  return OAUTH_CODE.test(appError.code) ? appError.code : byStatus(appError.status);
}

const oauthCodeOf = (status: number) =>
  status === 401
    ? 'invalid_client'
    : status === 403
      ? 'access_denied'
      : status >= 500
        ? 'server_error'
        : status === 429
          ? 'temporarily_unavailable'
          : 'invalid_request';
const setCodeOf = (status: number) =>
  status === 401
    ? 'authentication_failed'
    : status === 403
      ? 'access_denied'
      : status >= 500
        ? 'server_error'
        : 'invalid_request';

/**
 * A component that is gone (503) or did not answer in time (504) is usually back within
 * seconds: every such answer says when to try again, on every route shape, unless its error
 * names a time of its own (a draining gateway's 1 s). A 504 may still have done the work:
 * only idempotent requests are retried blindly (docs/errors.md).
 */
function defaultRetryAfter(status: number): number | undefined {
  return status === 503 || status === 504 ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined;
}

export function buildErrorResponse(err: unknown, url: string): ErrorResponse {
  let appError = toAppError(err);
  let errorId: string | undefined;
  if (!appError) {
    errorId = randomUUID();
    appError = new AppError({
      status: 500,
      code: ErrorCode.INTERNAL_ERROR,
      message: `An unexpected error occurred. Quote error id ${errorId} when reporting it.`,
      details: { errorId },
    });
  }
  const headers: Record<string, string> = {};
  const retryAfter = appError.details?.retryAfterSeconds ?? defaultRetryAfter(appError.status);
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  if (Array.isArray(appError.details?.allow)) headers['allow'] = (appError.details.allow as string[]).join(', ');

  if (isOpenAiRoute(url)) {
    return {
      status: appError.status,
      code: appError.code,
      headers,
      errorId,
      cause: errorId ? err : undefined,
      body: {
        error: {
          message: appError.message,
          type: OPENAI_TYPES[appError.status] ?? (appError.status < 500 ? 'invalid_request_error' : 'server_error'),
          code: appError.code.toLowerCase(),
          // The spec's OpenAI error body is all strings: no single field at fault is "".
          param: appError.param ?? '',
        },
      },
    };
  }
  if (isOAuthRoute(url) || url.split('?')[0] === SET_DELIVERY_ROUTE) {
    const oauth = isOAuthRoute(url);
    const code = protocolCode(appError, oauth ? oauthCodeOf : setCodeOf);
    // RFC 6749 §5.1: token answers, errors included, are never cached.
    if (oauth) Object.assign(headers, { 'cache-control': 'no-store', pragma: 'no-cache' });
    // RFC 6749 §5.2: a failed client authentication is 401 with the scheme the client may use.
    if (oauth && appError.status === 401) headers['www-authenticate'] = 'Basic realm="kw"';
    return {
      status: appError.status,
      code: appError.code,
      headers,
      errorId,
      cause: errorId ? err : undefined,
      body: oauth ? { error: code, error_description: appError.message } : { err: code, description: appError.message },
    };
  }
  const details = { ...(appError.details ?? {}) };
  delete details.allow;
  delete details.retryAfterSeconds;
  return {
    status: appError.status,
    code: appError.code,
    headers,
    errorId,
    cause: errorId ? err : undefined,
    body: { error: appError.message, code: appError.code, ...details },
  };
}
