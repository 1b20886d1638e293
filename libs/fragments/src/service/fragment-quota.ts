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

  /** Throws FRAGMENT_LIMIT_REACHED when the workspace holds `max` fragments; counts the create otherwise. */
  async reserve(workspaceId: string, max: number, now = Date.now()): Promise<void> {
    const known = this.counts.get(workspaceId);
    if (known && now - known.at < RECOUNT_AFTER_MS && known.count + EXACT_COUNT_WITHIN < max) {
      known.count++;
      return;
    }
    const count = await this.fragments.countInWorkspace(workspaceId);
    if (count >= max) throw fragmentLimitReached(max);
    if (this.counts.size >= 10_000) this.counts.clear();
    this.counts.set(workspaceId, { count: count + 1, at: now });
  }
}
