import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb } from './chat-database.js';

/** Which plan an administrator gave an account. */
@Injectable()
export class PlanAssignmentsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async planOf(userId: string): Promise<string | undefined> {
    return (await this.db.planAssignment.findUnique({ where: { userId } }))?.planId;
  }

  async assign(userId: string, planId: string, assignedBy: string): Promise<void> {
    await this.db.planAssignment.upsert({
      where: { userId },
      create: { userId, planId, assignedBy },
      update: { planId, assignedBy, assignedAt: new Date() },
    });
  }
}
