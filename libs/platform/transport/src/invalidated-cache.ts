interface Entry<V> {
  value: V;
  tags: readonly string[];
  /** Epoch ms after which the entry is not used. */
  until: number;
}

/** Most entries one cache keeps; the oldest goes first above it. */
export const INVALIDATED_CACHE_MAX_ENTRIES = 10_000;

/**
 * A short-lived cache of answers owned by another component, kept honest by that component's
 * broadcasts: each entry carries tags (e.g. the workspace or token it describes), and
 * `invalidate(tags)` drops every entry with one of them. Entries also expire after `ttlMs`,
 * which bounds the staleness a missed broadcast can cause (broadcasts are at most once).
 *
 * An answer fetched while an invalidation arrived may describe the state before the change,
 * so it is not stored: take `begin()` before asking, and hand it to `store()`.
 */
export class InvalidatedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  private generation = 0;

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = INVALIDATED_CACHE_MAX_ENTRIES,
  ) {}

  /** A TTL of 0 turns the cache off: nothing is stored. */
  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.remove(key);
      return undefined;
    }
    return entry.value;
  }

  begin(): number {
    return this.generation;
  }

  /** Stores an answer fetched since `startedAt` (from `begin()`), until `notAfter` at the latest. */
  store(
    key: string,
    value: V,
    tags: readonly string[],
    startedAt: number,
    notAfter = Infinity,
    now = Date.now(),
  ): void {
    if (!this.enabled || startedAt !== this.generation) return;
    const until = Math.min(now + this.ttlMs, notAfter);
    if (until <= now) return;
    this.remove(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    this.entries.set(key, { value, tags, until });
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Drops every entry carrying one of these tags, and any answer being fetched now. */
  invalidate(tags: Iterable<string>): void {
    this.generation++;
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys) for (const key of [...keys]) this.remove(key);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }
}
