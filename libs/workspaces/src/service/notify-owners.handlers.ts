import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { MembersRepository } from '../persistence/members.repository.js';
import { NotificationsRepository } from '../persistence/notifications.repository.js';
import { isUuid } from '@kw/platform-ids';
import { NotificationKind } from './notifications.js';

/** Kinds other components may write, so a notification kind stays a known vocabulary. */
const EXTERNAL_KINDS = new Set<string>([
  NotificationKind.WEBHOOK_DISABLED,
  NotificationKind.WORKSPACE_LIMIT,
  NotificationKind.WORKSPACE_TRANSFER,
]);

/**
 * Internal: another component tells a workspace's owners something (no HTTP route reaches
 * it; the bus is the platform's own network). Unknown workspaces notify nobody.
 */
@Injectable()
export class NotifyOwnersHandlers {
  constructor(
    private readonly members: MembersRepository,
    private readonly notifications: NotificationsRepository,
  ) {}

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
    const owners = await this.members.ownerIds(input.workspaceId);
    if (owners.length === 0) return { notified: 0 };
    // The key is the workspace's: the same news of two workspaces (both at 80 % of one cap) is two notices.
    await this.notifications.createForUsers(
      owners,
      input.kind,
      { ...payload, workspaceId: input.workspaceId },
      input.dedupeKey ? `${input.workspaceId}:${input.dedupeKey}` : undefined,
    );
    return { notified: owners.length };
  }
}
