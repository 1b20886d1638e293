import { createHash } from 'node:crypto';
import type { Clock, RateLimiter, RateLimitResult } from './rate-limiter.js';

/** A block ends after the window times 2^strikes, at most this many windows. */
const MAX_BACKOFF_WINDOWS = 16;
/** Blocked keys held in memory at most; beyond it the oldest are forgotten (the counters remain). */
const MAX_BLOCKED_KEYS = 100_000;

/** Credentials are counted by digest: a presented secret is never kept, in memory or in a store. */
const credentialKey = (credential: string): string =>
  `cred:${createHash('sha256').update(credential).digest('base64url').slice(0, 32)}`;

interface Block {
  untilMs: number;
  strikes: number;
  /** Strikes are forgotten once a key has not been blocked for this long. */
  forgetAtMs: number;
}

/**
 * Throttles failed authentications, per address and per presented credential, so guessing
 * tokens or replaying a revoked one costs the guesser, not the identity service:
 * - every failure counts on two limiters (the address, and a digest of the credential);
 * - a key over its limit is blocked: its requests are refused with 429 before the credential
 *   is even looked up, for the rest of the window, then twice as long at each repeat
 *   (exponential backoff, up to MAX_BACKOFF_WINDOWS windows).
 * The counters live in the limiters' store (shared by every gateway replica in distributed
 * mode); the blocks are remembered per replica, each learning of a block at its next failure.
 */
export class FailedAuthThrottle {
  private readonly blocks = new Map<string, Block>();

  constructor(
    private readonly perAddress: RateLimiter,
    private readonly perCredential: RateLimiter,
    private readonly clock: Clock = Date.now,
  ) {}

  /** The refusal to answer at once when this address or credential is blocked; undefined otherwise. */
  blocked(address: string, credential: string | undefined): RateLimitResult | undefined {
    if (this.blocks.size === 0) return undefined;
    const now = this.clock();
    const keys = credential ? [`ip:${address}`, credentialKey(credential)] : [`ip:${address}`];
    let longest = 0;
    for (const key of keys) {
      const block = this.blocks.get(key);
      if (block && block.untilMs > now) longest = Math.max(longest, block.untilMs - now);
    }
    if (longest === 0) return undefined;
    const seconds = Math.max(1, Math.ceil(longest / 1000));
    return {
      allowed: false,
      limit: this.perAddress.policy.limit,
      remaining: 0,
      resetSeconds: seconds,
      retryAfterSeconds: seconds,
    };
  }

  /** Counts one failure; returns the refusal when it passed a limit (the caller answers 429, not 401). */
  async failed(address: string, credential: string | undefined): Promise<RateLimitResult | undefined> {
    const counted = [{ key: `ip:${address}`, result: this.perAddress.hit(`ip:${address}`) }];
    if (credential) {
      const key = credentialKey(credential);
      counted.push({ key, result: this.perCredential.hit(key) });
    }
    let refusal: RateLimitResult | undefined;
    for (const { key, result } of counted) {
      const outcome = await result;
      if (outcome.allowed) continue;
      const blocked = this.block(key, outcome);
      if (!refusal || blocked.retryAfterSeconds > refusal.retryAfterSeconds) refusal = blocked;
    }
    return refusal;
  }

  private block(key: string, result: RateLimitResult): RateLimitResult {
    const now = this.clock();
    const windowMs = this.perAddress.policy.windowSeconds * 1000;
    const previous = this.blocks.get(key);
    // Still blocked (a failure that raced the block): keep that block.
    if (previous && previous.untilMs > now) return this.refusal(result, previous.untilMs - now);
    const strikes = previous && previous.forgetAtMs > now ? previous.strikes + 1 : 0;
    // The first block lasts the rest of the limiter's window; each repeat doubles it.
    const durationMs =
      strikes === 0 ? result.retryAfterSeconds * 1000 : windowMs * Math.min(2 ** strikes, MAX_BACKOFF_WINDOWS);
    const untilMs = now + durationMs;
    this.blocks.delete(key); // re-inserted last, so the size cap forgets the oldest block first
    this.blocks.set(key, { untilMs, strikes, forgetAtMs: untilMs + windowMs * MAX_BACKOFF_WINDOWS });
    if (this.blocks.size > MAX_BLOCKED_KEYS) this.blocks.delete(this.blocks.keys().next().value as string);
    return this.refusal(result, durationMs);
  }

  private refusal(result: RateLimitResult, remainingMs: number): RateLimitResult {
    const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
    return { ...result, allowed: false, remaining: 0, resetSeconds: seconds, retryAfterSeconds: seconds };
  }
}
