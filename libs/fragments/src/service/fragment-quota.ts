/** Closer to the limit than this, every create counts the workspace's fragments exactly. */
export const EXACT_COUNT_WITHIN = 1_000;
/** A workspace's count is read again at least this often. */
export const RECOUNT_AFTER_MS = 5_000;

/**
 * How creates are to be written: `near: false`, as they are (the workspace is far from its
 * limit; `counted` is the count with them when it was just read, for the plan's 80 %/100 %
 * notices); `near: true`, through the repository's locked insert, which counts under a
 * per-workspace lock and writes only what fits (then `remember` its count).
 */
export type QuotaDecision = { near: false; counted?: number } | { near: true };

/**
 * MAX_FRAGMENTS_PER_WORKSPACE at create time without counting a large workspace on every
 * create (a scan of its index entries, per create) or serialising its creates. Far from the
 * limit, the last count plus this process's creates since then decides; within
 * EXACT_COUNT_WITHIN of the limit every create is counted under the workspace's lock as it is
 * written, so creates at the same instant, on any replica, cannot pass the limit together.
 * Counts are read again RECOUNT_AFTER_MS after the last. Other replicas' creates far from the
 * limit are seen at the next count: they would have to create EXACT_COUNT_WITHIN fragments
 * within that interval to pass the limit. Deletes make the remembered count high, never low.
 */
export class FragmentQuota {
  private readonly counts = new Map<string, { count: number; at: number }>();

  constructor(private readonly fragments: { countInWorkspace(workspaceId: string): Promise<number> }) {}

  /** How `wanted` creates in the workspace are written under `max`; far from it, they are counted as done. */
  async decide(workspaceId: string, max: number, wanted: number, now = Date.now()): Promise<QuotaDecision> {
    const known = this.counts.get(workspaceId);
    if (known && now - known.at < RECOUNT_AFTER_MS) {
      if (!farFrom(max, known.count + wanted)) return { near: true };
      known.count += wanted;
      return { near: false };
    }
    const count = await this.fragments.countInWorkspace(workspaceId);
    if (!farFrom(max, count + wanted)) {
      this.remember(workspaceId, count, now);
      return { near: true };
    }
    this.remember(workspaceId, count + wanted, now);
    return { near: false, counted: count + wanted };
  }

  /** The workspace's exact count (the locked insert's, with what it wrote). */
  remember(workspaceId: string, count: number, now = Date.now()): void {
    if (this.counts.size >= 10_000 && !this.counts.has(workspaceId)) this.counts.clear();
    this.counts.set(workspaceId, { count, at: now });
  }
}

function farFrom(max: number, count: number): boolean {
  return count + EXACT_COUNT_WITHIN <= max;
}
