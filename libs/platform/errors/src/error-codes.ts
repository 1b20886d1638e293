import { AppError } from './app-error.js';

/** Stable error codes of the platform. Documented in docs/errors.md; never renamed. */
export const ErrorCode = {
  BAD_REQUEST: 'BAD_REQUEST',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_JSON: 'INVALID_JSON',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  CONFLICT: 'CONFLICT',
  HOSTED_ZONE_REQUIRED: 'HOSTED_ZONE_REQUIRED',
  FILES_UNSUPPORTED_IN_HOSTED_ZONE: 'FILES_UNSUPPORTED_IN_HOSTED_ZONE',
  WORKSPACE_MOVING: 'WORKSPACE_MOVING',
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  RANGE_NOT_SATISFIABLE: 'RANGE_NOT_SATISFIABLE',
  SECRET_NAME_TAKEN: 'SECRET_NAME_TAKEN',
  MODEL_NOT_FOUND: 'MODEL_NOT_FOUND',
  UNSUPPORTED_PARAMETER: 'UNSUPPORTED_PARAMETER',
  WEB_SEARCH_ACCESS_REQUIRED: 'WEB_SEARCH_ACCESS_REQUIRED',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_REJECTED: 'UPSTREAM_REJECTED',
  CLIENT_CLOSED_REQUEST: 'CLIENT_CLOSED_REQUEST',
  EMBED_KEY_INVALID: 'EMBED_KEY_INVALID',
  ORIGIN_NOT_ALLOWED: 'ORIGIN_NOT_ALLOWED',
  MODEL_LOCKED: 'MODEL_LOCKED',
  FEEDBACK_DISABLED: 'FEEDBACK_DISABLED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  URI_TOO_LONG: 'URI_TOO_LONG',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SECRET_UNREADABLE: 'SECRET_UNREADABLE',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  SERVICE_TIMEOUT: 'SERVICE_TIMEOUT',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const notFound = (what = 'Resource'): AppError =>
  new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: `${what} not found` });

/** 400 VALIDATION_FAILED naming one field, as the edge's ValidationPipe answers (docs/errors.md). */
export const invalidField = (field: string, problem: string): AppError =>
  new AppError({
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: `${field}: ${problem}`,
    details: { fields: [{ field, problems: [problem] }] },
    param: field,
  });

/**
 * 500 SECRET_UNREADABLE: a stored secret a request needs was sealed under a master key the
 * platform no longer has (SECRETS_ENCRYPTION_KEY changed without `npm run vault:rewrap`). The
 * message says what to replace; nothing of the value or the keys is in it.
 */
export const secretUnreadable = (what: string, remedy: string): AppError =>
  new AppError({
    status: 500,
    code: ErrorCode.SECRET_UNREADABLE,
    message: `${what} cannot be opened with the platform's encryption keys (they were changed): ${remedy}`,
  });

export const badRequest = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError({ status: 400, code: ErrorCode.BAD_REQUEST, message, details });

/** A count cap reached (secrets per user, keys per configuration...): 409 QUOTA_EXCEEDED. */
export const capReached = (message: string): AppError =>
  new AppError({ status: 409, code: ErrorCode.QUOTA_EXCEEDED, message });

/**
 * A component's restart takes a few seconds: callers are told when to try again (Retry-After).
 * The HTTP edge also sends it with a 503 or 504 that names no time of its own.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export const serviceUnavailable = (service: string): AppError =>
  new AppError({
    status: 503,
    code: ErrorCode.SERVICE_UNAVAILABLE,
    message: `The ${service} service is unavailable`,
    details: { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
  });

/**
 * 503 SERVICE_UNAVAILABLE when this process has lost its connection to the message bus: no
 * component can be asked until it reconnects (it keeps trying), so calls fail at once.
 */
export const transportUnavailable = (component: string): AppError =>
  new AppError({
    status: 503,
    code: ErrorCode.SERVICE_UNAVAILABLE,
    message: `The message bus (NATS) is unreachable from the ${component} process; it is reconnecting, try again shortly`,
    details: { transport: 'nats', retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
  });

export const serviceTimeout = (service: string): AppError =>
  new AppError({
    status: 504,
    code: ErrorCode.SERVICE_TIMEOUT,
    message: `The ${service} service did not answer in time`,
  });

/** Spec (Errors, Hosted Zone boundary): `error` repeats the code, and the Leaf to call is named. */
export const hostedZoneRequired = (hostedZoneId: string, endpointUrl: string): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.HOSTED_ZONE_REQUIRED,
    message: ErrorCode.HOSTED_ZONE_REQUIRED,
    details: { hostedZoneId, endpointUrl },
  });

/** A write to a workspace that is moving between planes: read-only until the move ends (docs/portable-workspaces.md#moving). */
export const workspaceMoving = (): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.WORKSPACE_MOVING,
    message: 'The workspace is moving between planes and is read-only until the move is completed or aborted',
  });
