import { AppError, ErrorCode } from '@kw/platform-errors';
import { scrubSecret } from './scrub-secret.js';

export const ModelErrorCode = {
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_REJECTED: 'UPSTREAM_REJECTED',
  MODEL_NOT_FOUND: 'MODEL_NOT_FOUND',
} as const;

/** Upstream text shown to clients is cut here: enough to act on, never a wall of HTML. */
const DETAIL_MAX = 300;

export interface UpstreamFailureInfo {
  /** Worth another attempt or a fallback provider: connection errors, timeouts, 429, 5xx. */
  retryable?: boolean;
  /** The provider's HTTP status, when it answered. */
  upstreamStatus?: number;
  /** What the provider's Retry-After (or retry-after-ms) asked for. */
  retryAfterMs?: number;
  /**
   * The provider's own words about the failure (its error body's message), for the server log
   * only: a 502 answer names the provider and the status, never what the provider said.
   */
  providerSaid?: string;
}

/**
 * An AppError that remembers how the provider failed, so the gateway can decide on retries
 * and fallback, and log it. The extra fields stay out of toJSON (the client sees status, code,
 * message).
 */
export class UpstreamError extends AppError {
  readonly provider: string;
  readonly retryable: boolean;
  readonly upstreamStatus?: number;
  readonly retryAfterMs?: number;
  readonly providerSaid?: string;

  constructor(init: ConstructorParameters<typeof AppError>[0], provider: string, info: UpstreamFailureInfo = {}) {
    super(init);
    this.provider = provider;
    this.retryable = info.retryable ?? false;
    this.upstreamStatus = info.upstreamStatus;
    this.retryAfterMs = info.retryAfterMs;
    this.providerSaid = info.providerSaid;
  }
}

/**
 * 502: the provider failed (or answered something unusable). `detail` is shown to the client, so
 * it is the platform's own words (a status, "connection error"); the provider's go in
 * `info.providerSaid`, which only the log sees.
 */
export function upstreamError(provider: string, detail: string, info: UpstreamFailureInfo = {}): UpstreamError {
  return new UpstreamError(
    {
      status: 502,
      code: ModelErrorCode.UPSTREAM_ERROR,
      message: `The model provider "${provider}" failed: ${truncate(detail, DETAIL_MAX + 100)}`,
    },
    provider,
    info,
  );
}

/** 400: the provider refused the request itself; its message tells the client what to fix. */
export function upstreamRejected(provider: string, message: string): UpstreamError {
  return new UpstreamError(
    {
      status: 400,
      code: ModelErrorCode.UPSTREAM_REJECTED,
      message: `The model provider "${provider}" rejected the request: ${truncate(message)}`,
    },
    provider,
    { upstreamStatus: 400 },
  );
}

export function modelNotFound(id: string): AppError {
  return new AppError({
    status: 404,
    code: ModelErrorCode.MODEL_NOT_FOUND,
    message: `The model "${truncate(id, 200)}" does not exist`,
    param: 'model',
  });
}

export function badModelRequest(message: string, param?: string): AppError {
  return new AppError({ status: 400, code: ErrorCode.BAD_REQUEST, message, param });
}

/**
 * A request field a provider's adapter cannot translate (a tool call's arguments that are not a
 * JSON object, a message without its tool_call_id): 400 VALIDATION_FAILED naming the field, like
 * the fields the edge checks itself.
 */
export function invalidModelField(param: string, message: string): AppError {
  return new AppError({ status: 400, code: ErrorCode.VALIDATION_FAILED, message, param });
}

/** Statuses that mean the request itself is wrong: answered as 400 with the provider's words. */
const REJECTED = new Set([400, 413, 422]);

/**
 * Classifies a non-2xx answer. `body` is the (possibly partial) error body; `secret` is the key
 * that was sent, scrubbed from anything echoed back or logged. A refusal of the request (400,
 * 413, 422) passes the provider's message on, since it says what to fix; any other failure
 * answers with its status only and keeps the message for the log (it can describe the
 * provider's internals).
 */
export function upstreamHttpError(
  provider: string,
  status: number,
  body: string,
  retryAfterMs: number | undefined,
  secret: string | undefined,
): UpstreamError {
  const said = truncate(scrubSecret(messageOf(body), secret));
  if (REJECTED.has(status)) return upstreamRejected(provider, said || `HTTP ${status}`);
  const retryable = status === 408 || status === 429 || status >= 500;
  return upstreamError(provider, `HTTP ${status}`, {
    retryable,
    upstreamStatus: status,
    retryAfterMs,
    providerSaid: said || undefined,
  });
}

/** The human message of an error body: OpenAI and Anthropic both use {error: {message}}. */
export function messageOf(body: string): string {
  const text = body.trim();
  if (!text) return '';
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const candidates = [
      (parsed?.error as { message?: unknown } | undefined)?.message,
      parsed?.error,
      parsed?.message,
      parsed?.detail,
    ];
    for (const c of candidates) if (typeof c === 'string' && c.trim()) return c.trim();
    return '';
  } catch {
    // An HTML error page from a proxy says nothing useful to an API client.
    return text.startsWith('<') ? '' : text;
  }
}

/** Retry-After in seconds or as an HTTP date; Azure's retry-after-ms when given. */
export function parseRetryAfter(seconds: string | undefined, milliseconds?: string): number | undefined {
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Math.round(Number(milliseconds));
  if (!seconds) return undefined;
  const value = seconds.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Rejection reason of a call cancelled through its AbortSignal. */
export function abortError(reason?: unknown): Error {
  const err = new Error('The model call was aborted', reason === undefined ? undefined : { cause: reason });
  err.name = 'AbortError';
  return err;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

export function truncate(text: string, max = DETAIL_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
