import type { RateLimitStore, WindowCount } from './rate-limit-store.js';

/** A shared store that can count several hits of several keys in one round trip. */
export interface SharedRateLimitStore extends RateLimitStore {
  hitMany(hits: readonly { key: string; count: number; windowMs: number }[], nowMs: number): Promise<WindowCount[]>;
}

interface KeyState {
  /** The shared count at the last sync, this replica's synced hits included. */
  synced: number;
  /** Hits counted here and not yet sent, and those being sent. */
  pending: number;
  sending: number;
  windowMs: number;
  windowEndsAtMs: number;
  lastSeenMs: number;
}

export interface BatchedRateLimitStoreOptions {
  /** How often local counts are sent to the shared store (and the others' learned). */
  syncEveryMs?: number;
  /** Called when a sync fails (the counts are kept for the next one). */
  onSyncError?: (err: unknown) => void;
}

/**
 * A replica's local view of a shared counter store (PostgresRateLimitStore): every hit is
 * counted in memory and answered at once; the counts go to the shared store in one statement
 * every `syncEveryMs`, which answers the totals of every replica. An exact shared store puts a
 * row lock and a round trip on every request (all requests of one credential queue on its
 * row); this puts none. The price is precision across replicas: each may let through up to
 * one sync interval of another's hits beyond the limit. Within one replica, counts stay exact.
 */
export class BatchedRateLimitStore implements RateLimitStore {
  private readonly keys = new Map<string, KeyState>();
  private readonly syncEveryMs: number;
  private timer?: NodeJS.Timeout;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly shared: SharedRateLimitStore,
    private readonly options: BatchedRateLimitStoreOptions = {},
  ) {
    this.syncEveryMs = options.syncEveryMs ?? 200;
  }

  async hit(key: string, windowMs: number, nowMs: number): Promise<WindowCount> {
    let state = this.keys.get(key);
    if (!state || state.windowEndsAtMs <= nowMs) {
      // A new window: what was counted for the old one no longer matters to anyone.
      state = { synced: 0, pending: 0, sending: 0, windowMs, windowEndsAtMs: nowMs + windowMs, lastSeenMs: nowMs };
      this.keys.set(key, state);
    }
    state.pending += 1;
    state.lastSeenMs = Math.max(state.lastSeenMs, nowMs);
    this.schedule();
    return { hits: state.synced + state.sending + state.pending, windowEndsAtMs: state.windowEndsAtMs };
  }

  async prune(nowMs: number): Promise<number> {
    // Counts of an ended window matter to no one: not worth sending either.
    for (const [key, state] of this.keys) if (state.windowEndsAtMs <= nowMs) this.keys.delete(key);
    return this.shared.prune(nowMs);
  }

  /** Sends what was counted since the last sync; resolves when the shared store answered. */
  sync(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.syncing = this.syncing.then(() => this.send()).catch((err: unknown) => this.options.onSyncError?.(err));
    return this.syncing;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.sync(), this.syncEveryMs);
    this.timer.unref?.();
  }

  private async send(): Promise<void> {
    const batch: { key: string; state: KeyState; count: number }[] = [];
    for (const [key, state] of this.keys) {
      if (state.pending === 0) continue;
      batch.push({ key, state, count: state.pending });
      state.sending += state.pending;
      state.pending = 0;
    }
    if (batch.length === 0) return;
    const nowMs = Math.max(...batch.map((b) => b.state.lastSeenMs));
    let answers: WindowCount[];
    try {
      answers = await this.shared.hitMany(
        batch.map(({ key, state, count }) => ({ key, count, windowMs: state.windowMs })),
        nowMs,
      );
    } catch (err) {
      for (const { state, count } of batch) {
        state.sending -= count;
        state.pending += count;
      }
      this.schedule();
      throw err;
    }
    batch.forEach(({ key, state, count }, i) => {
      state.sending -= count;
      // The key's window was replaced meanwhile: the answer is about the old one.
      if (this.keys.get(key) !== state) return;
      state.synced = answers[i]!.hits;
      state.windowEndsAtMs = answers[i]!.windowEndsAtMs;
    });
  }
}
