import { Inject, Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WORKSPACES_DB, type ControlDb } from './control-db.js';
import { isUuid } from '@kw/platform-ids';
import { NotificationKind } from './notifications.js';

/** Kinds other components may write, so a notification kind stays a known vocabulary. */
const EXTERNAL_KINDS = new Set<string>([NotificationKind.WEBHOOK_DISABLED]);

/**
 * Internal: another component tells a workspace's owners something (no HTTP route reaches
 * it; the bus is the platform's own network). Unknown workspaces notify nobody.
 */
@Injectable()
export class NotifyOwnersHandler {
  constructor(@Inject(WORKSPACES_DB) private readonly db: ControlDb) {}

  @Handles(WorkspacesService.method.notifyWorkspaceOwners)
  async notify(input: RequestOf<typeof WorkspacesService, 'notifyWorkspaceOwners'>) {
    if (!EXTERNAL_KINDS.has(input.kind)) throw badRequest(`Unknown notification kind: ${input.kind}`);
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(input.payloadJson || '{}') as Record<string, unknown>;
    } catch {
      throw badRequest('payload_json is not JSON');
    }
    if (!isUuid(input.workspaceId)) return { notified: 0 };
    const owners = await this.db.workspaceMember.findMany({
      where: { workspaceId: input.workspaceId, role: 'owner' },
      select: { userId: true },
    });
    if (owners.length === 0) return { notified: 0 };
    await this.db.notification.createMany({
      data: owners.map((o) => ({
        userId: o.userId,
        kind: input.kind,
        payload: { ...payload, workspaceId: input.workspaceId } as object,
      })),
    });
    return { notified: owners.length };
  }
}
