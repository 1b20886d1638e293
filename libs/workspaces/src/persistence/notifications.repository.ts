import { Inject, Injectable } from '@nestjs/common';
import type { NotificationRow } from './rows.js';
import { WORKSPACES_DB, type WorkspacesDb } from './workspaces-database.js';

export interface NotificationPage {
  rows: NotificationRow[];
  totalCount: number;
  unreadCount: number;
}

/** Users' notifications. */
@Injectable()
export class NotificationsRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  /** A page of the user's notifications, newest first, with the totals. */
  async page(userId: string, unreadOnly: boolean, take: number, skip: number): Promise<NotificationPage> {
    const where = { userId, ...(unreadOnly && { readAt: null }) };
    const [rows, totalCount, unreadCount] = await Promise.all([
      this.db.notification.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take, skip }),
      this.db.notification.count({ where }),
      this.db.notification.count({ where: { userId, readAt: null } }),
    ]);
    return { rows, totalCount, unreadCount };
  }

  findOwned(id: string, userId: string): Promise<NotificationRow | null> {
    return this.db.notification.findFirst({ where: { id, userId } });
  }

  markRead(id: string, at: Date): Promise<NotificationRow> {
    return this.db.notification.update({ where: { id }, data: { readAt: at } });
  }

  /** Returns how many were unread. */
  async markAllRead(userId: string, at: Date): Promise<number> {
    const { count } = await this.db.notification.updateMany({ where: { userId, readAt: null }, data: { readAt: at } });
    return count;
  }

  /** One notification per user, all of the same kind and payload. */
  /** With a dedupe key, a user who already has a notification with that key gets none. */
  async createForUsers(userIds: string[], kind: string, payload: object, dedupeKey?: string): Promise<void> {
    await this.db.notification.createMany({
      data: userIds.map((userId) => ({ userId, kind, payload, dedupeKey })),
      skipDuplicates: dedupeKey !== undefined,
    });
  }
}
