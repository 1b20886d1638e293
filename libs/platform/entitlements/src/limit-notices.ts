import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import type { LimitKey } from './account-limits.js';

/** The notification kind (GET /api/notifications) written when a workspace nears or reaches a plan limit. */
export const LIMIT_NOTIFICATION_KIND = 'workspace.limit';

/** Usage at these fractions of a limit tells the workspace's owners, each once. */
const THRESHOLDS = [100, 80] as const;
const MAX_REMEMBERED = 10_000;

/**
 * Tells a workspace's owners when its usage of a plan limit reaches 80 % and 100 % (docs/plans.md).
 * Each threshold is told once per workspace, limit and cap: the workspaces component keeps a
 * dedupe key per owner and workspace, so replicas and restarts do not repeat it, and a new cap (another plan)
 * tells again. This process remembers what it sent so a busy workspace does not ask each time.
 * Best effort: a notice that cannot be written never fails the work that caused it.
 */
export class LimitNotices {
  private readonly sent = new Set<string>();

  constructor(
    private readonly client: ServiceClient,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  async observe(workspaceId: string, limit: LimitKey, used: number, applied: { planId: string; max: number }) {
    const threshold = THRESHOLDS.find((t) => used * 100 >= applied.max * t);
    if (threshold === undefined || applied.max === 0) return;
    const dedupeKey = `${LIMIT_NOTIFICATION_KIND}:${limit}:${applied.max}:${threshold}`;
    const remembered = `${workspaceId}|${dedupeKey}`;
    if (this.sent.has(remembered)) return;
    if (this.sent.size >= MAX_REMEMBERED) this.sent.clear();
    this.sent.add(remembered);
    await this.client
      .call(WorkspacesService.method.notifyWorkspaceOwners, {
        workspaceId,
        kind: LIMIT_NOTIFICATION_KIND,
        dedupeKey,
        payloadJson: JSON.stringify({ limit, threshold, used, max: applied.max, planId: applied.planId }),
      })
      .catch((err: unknown) => {
        this.sent.delete(remembered);
        this.onError(err);
      });
  }
}
