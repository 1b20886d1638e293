import { Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { NOTIFICATIONS_LIMIT_DEFAULT, NOTIFICATIONS_LIMIT_MAX } from '../workspaces-limits.js';
import { assertAccount } from './caller.js';
import { NotificationsRepository } from '../persistence/notifications.repository.js';
import { isUuid } from '@kw/platform-ids';
import { notificationView } from './notifications.js';
import { notificationNotFound } from './workspace-errors.js';

/** The caller's own notifications (account-level: `profile:read` to list, `profile:write` to mark). */
@Injectable()
export class NotificationsHandlers {
  constructor(private readonly notifications: NotificationsRepository) {}

  @Handles(WorkspacesService.method.listNotifications)
  async list(input: RequestOf<typeof WorkspacesService, 'listNotifications'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:read');
    const limit = Math.min(Math.max(input.limit || NOTIFICATIONS_LIMIT_DEFAULT, 1), NOTIFICATIONS_LIMIT_MAX);
    const { rows, totalCount, unreadCount } = await this.notifications.page(
      userId,
      input.unreadOnly,
      limit,
      Math.max(input.offset, 0),
    );
    return { notifications: rows.map(notificationView), totalCount, unreadCount };
  }

  @Handles(WorkspacesService.method.markNotificationRead)
  async markRead(input: RequestOf<typeof WorkspacesService, 'markNotificationRead'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:write');
    if (!isUuid(input.notificationId)) throw notificationNotFound();
    const found = await this.notifications.findOwned(input.notificationId, userId);
    if (!found) throw notificationNotFound();
    const row = found.readAt ? found : await this.notifications.markRead(found.id, new Date());
    return { notification: notificationView(row) };
  }

  @Handles(WorkspacesService.method.markAllNotificationsRead)
  async markAllRead(_input: RequestOf<typeof WorkspacesService, 'markAllNotificationsRead'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:write');
    return { updated: await this.notifications.markAllRead(userId, new Date()) };
  }
}
