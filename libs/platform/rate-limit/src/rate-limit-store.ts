/** The counter of one key in its current window, right after a hit was counted. */
export interface WindowCount {
  /** Hits counted in the current window, this one included (refused hits count too). */
  hits: number;
  /** When the current window ends (epoch ms); the first hit at or after it opens a new one. */
  windowEndsAtMs: number;
}

/**
 * Where fixed-window counters live. `hit` must be atomic per key: concurrent hits on one key
 * each see a distinct count, so exactly `limit` of them are allowed. Adapters:
 * MemoryRateLimitStore (embedded mode, one process) and PostgresRateLimitStore (shared by
 * every gateway replica in distributed mode).
 */
export interface RateLimitStore {
  /** Counts one hit on `key` at `nowMs`, opening a window of `windowMs` if none is open. */
  hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount>;
  /** Forgets windows that ended at or before `nowMs`; returns how many. */
  prune(nowMs: number): Promise<number>;
}
