import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { Headers, TransportOptions } from './transport.js';

/**
 * When the caller stops waiting for a request's answer, in epoch milliseconds of the caller's
 * clock. A component that receives a request late (it was stopped, its event loop blocked, or
 * NATS held the message while it reconnected) would otherwise still carry it out after its
 * caller got 504: a create retried by a client would then be done twice.
 */
export const DEADLINE_HEADER = 'kw-deadline';

/**
 * How late past its deadline a request is still handled by default. The deadline is read on
 * another host's clock: a receiver whose clock runs ahead drops a request that arrives at once
 * only when the skew exceeds the caller's whole timeout plus this.
 */
export const DEFAULT_DEADLINE_GRACE_MS = 1_000;

/** The headers of a request whose caller waits `timeoutMs` from now. */
export function withDeadline(headers: Headers, timeoutMs: number, now = Date.now()): Headers {
  if (!Number.isFinite(timeoutMs)) return headers;
  return { ...headers, [DEADLINE_HEADER]: String(Math.ceil(now + timeoutMs)) };
}

/** The deadline a header carries, in epoch milliseconds; undefined when absent or malformed. */
export function deadlineOf(headers: Headers): number | undefined {
  const raw = headers[DEADLINE_HEADER];
  return raw !== undefined && /^\d{1,16}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * The headers a handler sees: the caller's deadline moved by the grace, so that the request
 * context's deadline (contextFromHeaders) says when the answer stops being of use here.
 */
export function withGrace(headers: Headers, graceMs: number): Headers {
  const deadline = deadlineOf(headers);
  return deadline === undefined ? headers : { ...headers, [DEADLINE_HEADER]: String(deadline + graceMs) };
}

/**
 * Refuses to commit work whose caller has stopped waiting (504): called inside a transaction,
 * just before it commits, by work that must not be done twice. Its caller got 504 already and
 * will retry; had this committed, the retry would find a spent authorization code or a used
 * refresh token. Outside a request with a deadline it does nothing.
 */
export function assertCallerWaiting(now = Date.now()): void {
  const deadline = requestContext.current()?.deadline;
  if (deadline !== undefined && now > deadline) throw callerGone();
}

/** The error of work abandoned because its caller stopped waiting (counted as `expired`). */
export function callerGone(): AppError {
  return new AppError({
    status: 504,
    code: ErrorCode.SERVICE_TIMEOUT,
    message: 'The caller stopped waiting; the work was abandoned before it was committed',
    details: { abandoned: true },
  });
}

/** Whether an error is callerGone's. */
export function isCallerGone(err: unknown): boolean {
  return (
    AppError.isAppError(err) &&
    err.status === 504 &&
    (err.details as { abandoned?: unknown } | undefined)?.abandoned === true
  );
}

/**
 * How many milliseconds past its deadline (and the grace) a request arrived, or undefined
 * when it is in time. A request without the header (a caller of an older version during a
 * rolling upgrade) or with a malformed one is always in time.
 */
export function lateBy(headers: Headers, graceMs: number, now = Date.now()): number | undefined {
  const deadline = deadlineOf(headers);
  if (deadline === undefined) return undefined;
  const late = now - (deadline + graceMs);
  return late > 0 ? late : undefined;
}

/** An adapter's deadline settings, as answerRequest takes them. */
export function deadlineScope(options: TransportOptions): {
  deadlineGraceMs: number;
  onExpired?: (subject: string) => void;
} {
  return { deadlineGraceMs: options.deadlineGraceMs ?? DEFAULT_DEADLINE_GRACE_MS, onExpired: options.onExpired };
}
