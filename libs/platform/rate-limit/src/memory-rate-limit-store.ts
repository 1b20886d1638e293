import type { RateLimitStore, WindowCount } from './rate-limit-store.js';

interface Window {
  hits: number;
  endsAtMs: number;
}

/**
 * Counters in this process's memory, for the embedded mode (one process serves every
 * request, so nothing needs sharing). Atomic because the read-modify-write never awaits.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private hitsSinceSweep = 0;

  /** @param sweepEvery hits between sweeps of ended windows, so keys seen once do not pile up. */
  constructor(private readonly sweepEvery = 10_000) {}

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    if (++this.hitsSinceSweep >= this.sweepEvery) this.sweep(nowMs);
    let window = this.windows.get(key);
    if (!window || window.endsAtMs <= nowMs) {
      window = { hits: 0, endsAtMs: nowMs + windowMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return { hits: window.hits, windowEndsAtMs: window.endsAtMs };
  }

  async prune(nowMs: number): Promise<number> {
    return this.sweep(nowMs);
  }

  /** Number of keys with a window held (ended ones included until the next sweep). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(nowMs: number): number {
    this.hitsSinceSweep = 0;
    let removed = 0;
    for (const [key, window] of this.windows) {
      if (window.endsAtMs <= nowMs) {
        this.windows.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
