import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb, type ChatTx } from './chat-database.js';

/** Which plan an administrator (or a paid subscription, docs/billing.md) gave an account. */
@Injectable()
export class PlanAssignmentsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb | ChatTx) {}

  /** The same repository inside another repository's transaction (billing's webhooks). */
  within(tx: ChatTx): PlanAssignmentsRepository {
    return new PlanAssignmentsRepository(tx);
  }

  async planOf(userId: string): Promise<string | undefined> {
    return (await this.db.planAssignment.findUnique({ where: { userId } }))?.planId;
  }

  async assignment(userId: string): Promise<{ planId: string; assignedBy: string } | undefined> {
    return (
      (await this.db.planAssignment.findUnique({ where: { userId }, select: { planId: true, assignedBy: true } })) ??
      undefined
    );
  }

  async assign(userId: string, planId: string, assignedBy: string): Promise<void> {
    await this.db.planAssignment.upsert({
      where: { userId },
      create: { userId, planId, assignedBy },
      update: { planId, assignedBy, assignedAt: new Date() },
    });
  }

  /** Removes the assignment only if `assignedBy` made it (billing never undoes an administrator's). */
  async removeIfAssignedBy(userId: string, assignedBy: string): Promise<void> {
    await this.db.planAssignment.deleteMany({ where: { userId, assignedBy } });
  }
}
