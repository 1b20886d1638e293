import { Inject, Injectable } from '@nestjs/common';
import { WorkspacesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { NOTIFICATIONS_LIMIT_DEFAULT, NOTIFICATIONS_LIMIT_MAX } from '../workspace-limits.js';
import { assertAccount } from './caller.js';
import { WORKSPACES_DB, type ControlDb } from './control-db.js';
import { isUuid } from '@kw/platform-ids';
import { notificationView } from './notifications.js';
import { notificationNotFound } from './workspace-errors.js';

/** The caller's own notifications (account-level: `profile:read` to list, `profile:write` to mark). */
@Injectable()
export class NotificationHandlers {
  constructor(@Inject(WORKSPACES_DB) private readonly db: ControlDb) {}

  @Handles(WorkspacesService.method.listNotifications)
  async list(input: RequestOf<typeof WorkspacesService, 'listNotifications'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:read');
    const limit = Math.min(Math.max(input.limit || NOTIFICATIONS_LIMIT_DEFAULT, 1), NOTIFICATIONS_LIMIT_MAX);
    const where = { userId, ...(input.unreadOnly && { readAt: null }) };
    const [rows, totalCount, unreadCount] = await Promise.all([
      this.db.notification.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit,
        skip: Math.max(input.offset, 0),
      }),
      this.db.notification.count({ where }),
      this.db.notification.count({ where: { userId, readAt: null } }),
    ]);
    return { notifications: rows.map(notificationView), totalCount, unreadCount };
  }

  @Handles(WorkspacesService.method.markNotificationRead)
  async markRead(input: RequestOf<typeof WorkspacesService, 'markNotificationRead'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:write');
    if (!isUuid(input.notificationId)) throw notificationNotFound();
    const found = await this.db.notification.findFirst({ where: { id: input.notificationId, userId } });
    if (!found) throw notificationNotFound();
    const row = found.readAt
      ? found
      : await this.db.notification.update({ where: { id: found.id }, data: { readAt: new Date() } });
    return { notification: notificationView(row) };
  }

  @Handles(WorkspacesService.method.markAllNotificationsRead)
  async markAllRead(_input: RequestOf<typeof WorkspacesService, 'markAllNotificationsRead'>, context: RequestContext) {
    const { userId } = assertAccount(context, 'profile:write');
    const { count } = await this.db.notification.updateMany({
      where: { userId, readAt: null },
      data: { readAt: new Date() },
    });
    return { updated: count };
  }
}
