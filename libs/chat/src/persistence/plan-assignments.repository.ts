import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb, type ChatTx } from './chat-database.js';

/** Who gave an account a plan: a platform administrator, or a paying subscription (docs/billing.md). */
export type AssignmentSource = 'admin' | 'billing';

/**
 * Which plans an administrator and a paid subscription gave an account, one row per source, so
 * neither overwrites the other: the subscription's wins while it exists, and removing it gives
 * the administrator's grant back.
 */
@Injectable()
export class PlanAssignmentsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb | ChatTx) {}

  /** The same repository inside another repository's transaction (billing's webhooks). */
  within(tx: ChatTx): PlanAssignmentsRepository {
    return new PlanAssignmentsRepository(tx);
  }

  /** The account's assigned plan ids, the one that counts first (billing's, then an administrator's). */
  async plansOf(userId: string): Promise<string[]> {
    const rows = await this.db.planAssignment.findMany({ where: { userId }, select: { planId: true, source: true } });
    return rows.sort((a, b) => (a.source === 'billing' ? -1 : b.source === 'billing' ? 1 : 0)).map((r) => r.planId);
  }

  async assignment(
    userId: string,
    source: AssignmentSource,
  ): Promise<{ planId: string; assignedBy: string } | undefined> {
    return (
      (await this.db.planAssignment.findUnique({
        where: { userId_source: { userId, source } },
        select: { planId: true, assignedBy: true },
      })) ?? undefined
    );
  }

  async assign(userId: string, source: AssignmentSource, planId: string, assignedBy: string): Promise<void> {
    await this.db.planAssignment.upsert({
      where: { userId_source: { userId, source } },
      create: { userId, source, planId, assignedBy },
      update: { planId, assignedBy, assignedAt: new Date() },
    });
  }

  async remove(userId: string, source: AssignmentSource): Promise<void> {
    await this.db.planAssignment.deleteMany({ where: { userId, source } });
  }
}
