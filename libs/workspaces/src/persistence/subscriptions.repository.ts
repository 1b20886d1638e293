import { Inject, Injectable } from '@nestjs/common';
import { WORKSPACES_DB, type WorkspacesDb } from './workspaces-database.js';

/** Public subscriptions of users to workspaces. */
@Injectable()
export class SubscriptionsRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  /** Idempotent. */
  async subscribe(workspaceId: string, userId: string): Promise<void> {
    await this.db.workspaceSubscription.upsert({
      where: { workspaceId_userId: { workspaceId, userId } },
      create: { workspaceId, userId },
      update: {},
    });
  }

  async unsubscribe(workspaceId: string, userId: string): Promise<void> {
    await this.db.workspaceSubscription.deleteMany({ where: { workspaceId, userId } });
  }
}
