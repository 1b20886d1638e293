import { Injectable } from '@nestjs/common';

/** Usage records reach the chat service within about this long (the recorder's batching, the hop). */
const RECORD_DELAY_MS = 2_000;
/** A hold never released (a bug, a lost callback) stops counting after this long. */
const HOLD_MAX_MS = 15 * 60_000;
/** Entitlements are at most this old (PlanGate's cache, PLAN_CACHE_MS at most): a record older than this plus the delay is counted in them. */
const ENTITLEMENTS_MAX_AGE_MS = 5_000;
/** Every this many additions, entries no check can need any more are dropped (accounts without a budget are never checked). */
const SWEEP_EVERY = 1_000;

interface Entry {
  amount: number;
  at: number;
  /** A call still running: counted until released. */
  held: boolean;
}

export interface Hold {
  release(): void;
}

/** What a budget counts: chat tokens (`monthlyTokens`) or generated images (`monthlyImages`). */
export type UsageUnit = 'tokens' | 'images';

/**
 * Per account and unit, the chat tokens or images this process knows of that the cached
 * entitlements may not count yet (docs/plans.md): an estimate for each model call in flight
 * (held from the plan check until the call ends) and what was recorded since the entitlements
 * were read. Without them, calls started at once, or within the entitlements' five seconds, would
 * all see the same remaining budget. In-process: each gateway process counts its own calls.
 */
@Injectable()
export class UncountedUsage {
  private readonly entries = new Map<string, Set<Entry>>();
  private added = 0;

  /** What the account's calls in flight and those recorded after `since` (less the delay) used. */
  total(userId: string, since: number, unit: UsageUnit = 'tokens', now = Date.now()): number {
    return this.sum(keyOf(userId, unit), since, now);
  }

  /** Counts an estimate for a call starting now, until it is released (once; later calls do nothing). */
  hold(userId: string, amount: number, unit: UsageUnit = 'tokens'): Hold {
    const key = keyOf(userId, unit);
    const entry = this.add(key, amount, true);
    return {
      release: () => {
        this.entries.get(key)?.delete(entry);
      },
    };
  }

  /** Counts what was just recorded for the account. */
  recorded(userId: string, amount: number, unit: UsageUnit = 'tokens'): void {
    if (amount > 0) this.add(keyOf(userId, unit), amount, false);
  }

  private sum(key: string, since: number, now: number): number {
    const entries = this.entries.get(key);
    if (!entries) return 0;
    let sum = 0;
    for (const entry of entries) {
      // Dropped: a hold forgotten, or a record the entitlements read since then count already.
      if (entry.held ? now - entry.at > HOLD_MAX_MS : entry.at < since - RECORD_DELAY_MS) {
        entries.delete(entry);
        continue;
      }
      sum += entry.amount;
    }
    if (entries.size === 0) this.entries.delete(key);
    return sum;
  }

  private add(key: string, amount: number, held: boolean): Entry {
    const entry = { amount, at: Date.now(), held };
    if (++this.added % SWEEP_EVERY === 0) this.sweep(entry.at);
    let entries = this.entries.get(key);
    if (!entries) this.entries.set(key, (entries = new Set()));
    entries.add(entry);
    return entry;
  }

  private sweep(now: number): void {
    const horizon = now - ENTITLEMENTS_MAX_AGE_MS - RECORD_DELAY_MS;
    for (const key of [...this.entries.keys()]) this.sum(key, horizon, now);
  }
}

const keyOf = (userId: string, unit: UsageUnit): string => `${unit}\u0000${userId}`;
