import { fragmentLimitReached } from './fragment-errors.js';

/** Closer to the limit than this, every create counts the workspace's fragments exactly. */
export const EXACT_COUNT_WITHIN = 1_000;
/** A workspace's count is read again at least this often. */
export const RECOUNT_AFTER_MS = 5_000;

/**
 * MAX_FRAGMENTS_PER_WORKSPACE at create time without counting a large workspace on every
 * create (a scan of its index entries, per create). Far from the limit, the last exact count
 * plus this process's creates since then decides; within EXACT_COUNT_WITHIN of the limit, or
 * RECOUNT_AFTER_MS after the last count, it counts again. Other replicas' creates are seen at
 * the next count: they would have to create EXACT_COUNT_WITHIN fragments within that interval
 * to pass the limit. Deletes make the remembered count high, never low.
 */
export class FragmentQuota {
  private readonly counts = new Map<string, { count: number; at: number }>();

  constructor(private readonly fragments: { countInWorkspace(workspaceId: string): Promise<number> }) {}

  /**
   * Throws `full()` (by default FRAGMENT_LIMIT_REACHED) when the workspace holds `max`
   * fragments; counts the create otherwise. Answers the count with this create when it was
   * counted exactly (for the plan's 80 %/100 % notices), undefined when it was estimated.
   */
  async reserve(
    workspaceId: string,
    max: number,
    now = Date.now(),
    full: () => Error = () => fragmentLimitReached(max),
  ): Promise<number | undefined> {
    const { granted, counted } = await this.reserveMany(workspaceId, max, 1, now);
    if (granted === 0) throw full();
    return counted;
  }

  /**
   * `reserve` for `wanted` creates at once (a bulk write): grants as many as the workspace has
   * room for, so the first `granted` go ahead and the rest are refused, as they would be one
   * create after another. `counted` is the count with the granted ones when it was counted
   * exactly, undefined when estimated.
   */
  async reserveMany(
    workspaceId: string,
    max: number,
    wanted: number,
    now = Date.now(),
  ): Promise<{ granted: number; counted?: number }> {
    const known = this.counts.get(workspaceId);
    if (known && now - known.at < RECOUNT_AFTER_MS && known.count + wanted + EXACT_COUNT_WITHIN <= max) {
      known.count += wanted;
      return { granted: wanted };
    }
    const count = await this.fragments.countInWorkspace(workspaceId);
    const granted = Math.max(0, Math.min(wanted, max - count));
    if (this.counts.size >= 10_000) this.counts.clear();
    this.counts.set(workspaceId, { count: count + granted, at: now });
    return { granted, counted: count + granted };
  }
}
