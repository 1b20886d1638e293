import { DEFAULT_RETRY_SCHEDULE, RETRY_AFTER_MAX_MS } from '../../webhooks-limits.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `5s,5m,2h` -> delays in ms (the config validated the shape at start-up). */
export function parseRetrySchedule(text: string = DEFAULT_RETRY_SCHEDULE): number[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(part);
    if (!match) throw new Error(`bad retry delay: ${part}`);
    return Number(match[1]) * UNIT_MS[match[2]!]!;
  });
}

/**
 * When attempt `attemptsMade + 1` should run, or null when the schedule is spent. Jitter of
 * ±20% spreads the retries of many deliveries that failed together (a receiver's outage).
 * A Retry-After from a 429/503 is honoured when it asks for longer than the schedule.
 */
export function nextAttemptDelay(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, RETRY_AFTER_MAX_MS));
}

/** The answers whose Retry-After postpones the next attempt (docs/webhooks.md): 429 and 503. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** The Retry-After to honour: only that of a 429 or 503, never another answer's. */
export function honouredRetryAfter(status: number | undefined, retryAfterMs: number | undefined): number | undefined {
  return status !== undefined && RETRY_AFTER_STATUSES.has(status) ? retryAfterMs : undefined;
}
