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

/**
 * How many milliseconds past its deadline (and the grace) a request arrived, or undefined
 * when it is in time. A request without the header (a caller of an older version during a
 * rolling upgrade) or with a malformed one is always in time.
 */
export function lateBy(headers: Headers, graceMs: number, now = Date.now()): number | undefined {
  const raw = headers[DEADLINE_HEADER];
  if (raw === undefined || !/^\d{1,16}$/.test(raw)) return undefined;
  const late = now - (Number(raw) + graceMs);
  return late > 0 ? late : undefined;
}

/** An adapter's deadline settings, as answerRequest takes them. */
export function deadlineScope(options: TransportOptions): {
  deadlineGraceMs: number;
  onExpired?: (subject: string) => void;
} {
  return { deadlineGraceMs: options.deadlineGraceMs ?? DEFAULT_DEADLINE_GRACE_MS, onExpired: options.onExpired };
}
