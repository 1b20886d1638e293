import type { RateLimitStore } from './rate-limit-store.js';

export interface RateLimitPolicy {
  /** Names the limit in stored keys, so one key can have several limits (per minute, per day). */
  name: string;
  /** Hits allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Hits still allowed in the current window. */
  remaining: number;
  /** Seconds until the current window ends and the full limit is available again. */
  resetSeconds: number;
  /** Seconds to wait before retrying; 0 when allowed. */
  retryAfterSeconds: number;
}

/** Epoch milliseconds; injectable so tests can move time. */
export type Clock = () => number;

const POLICY_NAME = /^[a-z0-9_.-]{1,64}$/i;

function checkPolicy(policy: RateLimitPolicy): void {
  if (!POLICY_NAME.test(policy.name))
    throw new Error(`Invalid rate limit name '${policy.name}' (letters, digits, '_', '.', '-')`);
  if (!Number.isInteger(policy.limit) || policy.limit < 1)
    throw new Error(`Rate limit ${policy.name}: limit must be a positive integer`);
  if (!Number.isInteger(policy.windowSeconds) || policy.windowSeconds < 1) {
    throw new Error(`Rate limit ${policy.name}: windowSeconds must be a positive integer`);
  }
}

/**
 * One limit (N hits per window), applied per key: a token id, a workspace id, an address.
 * Fixed windows anchored at a key's first hit: exactly `limit` hits are allowed from then
 * until the window ends, and the next hit after that opens a fresh window.
 */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    readonly policy: RateLimitPolicy,
    private readonly clock: Clock = Date.now,
  ) {
    checkPolicy(policy);
  }

  async hit(key: string): Promise<RateLimitResult> {
    const now = this.clock();
    const { limit, windowSeconds, name } = this.policy;
    // ':' cannot occur in a name, so the stored key is unambiguous.
    const { hits, windowEndsAtMs } = await this.store.hit(`${name}:${key}`, windowSeconds * 1000, now);
    const allowed = hits <= limit;
    const resetSeconds = Math.max(1, Math.ceil((windowEndsAtMs - now) / 1000));
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - hits),
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : resetSeconds,
    };
  }
}

/**
 * The result to report when several limits applied to one request (per token and per
 * workspace): a refusal with the longest wait, otherwise the one closest to refusing.
 */
export function mostRestrictive(results: readonly RateLimitResult[]): RateLimitResult {
  if (results.length === 0) throw new Error('mostRestrictive needs at least one result');
  return results.reduce((worst, r) => {
    if (worst.allowed !== r.allowed) return r.allowed ? worst : r;
    if (!r.allowed) return r.retryAfterSeconds > worst.retryAfterSeconds ? r : worst;
    if (r.remaining !== worst.remaining) return r.remaining < worst.remaining ? r : worst;
    return r.resetSeconds > worst.resetSeconds ? r : worst;
  });
}
