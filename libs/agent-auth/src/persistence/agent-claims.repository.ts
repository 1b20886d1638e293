import { Inject, Injectable } from '@nestjs/common';
import type { ControlPrisma } from '@kw/platform-persistence';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import { insertGrant, type AgentGrantRow, type NewAgentGrant, type NewTokenPair } from './agent-grants.repository.js';
import { assertCallerWaiting } from '@kw/platform-transport';

export type AgentClaimRow = ControlPrisma.AgentClaimModel;

const DAY_MS = 86_400_000;

export interface NewAgentClaim {
  claimTokenHash: string;
  loginHint: string;
  agentName: string;
  requestedScopes: string[];
  expiresAt: Date;
  windowExpiresAt: Date;
  intervalSeconds: number;
}

export interface ClaimDecision {
  userId: string;
  approve: boolean;
  scopes: string[];
  allWorkspaces: boolean;
  workspaceIds: string[];
}

/** A poll of the token endpoint as the claim recorded it. */
export interface RecordedPoll {
  claim: AgentClaimRow;
  /** The poll came sooner than the interval allowed (the interval has grown by `step`). */
  tooFast: boolean;
}

/** Service-assisted claims: created by an agent, decided on the claim page, redeemed once. */
@Injectable()
export class AgentClaimsRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  create(claim: NewAgentClaim): Promise<AgentClaimRow> {
    return this.db.agentClaim.create({ data: claim });
  }

  /** Forgets up to `limit` claims expired for a day (their rows are of no use then); how many went. */
  sweepExpired(now: Date, limit: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM control.agent_claims WHERE id IN (
      SELECT id FROM control.agent_claims WHERE expires_at < ${new Date(now.getTime() - DAY_MS)}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  }

  /**
   * Ends a claim its agent withdrew (RFC 7009 revocation of its claim token): not yet exchanged
   * for tokens, it expires now, so polls answer expired_token and the page is gone. Answers
   * whether a claim ended.
   */
  async withdraw(claimTokenHash: string, now: Date): Promise<boolean> {
    const { count } = await this.db.agentClaim.updateMany({
      where: { claimTokenHash, status: { in: ['pending', 'approved'] }, expiresAt: { gt: now } },
      data: { expiresAt: now, windowExpiresAt: now },
    });
    return count > 0;
  }

  findByTokenHash(claimTokenHash: string): Promise<AgentClaimRow | null> {
    return this.db.agentClaim.findUnique({ where: { claimTokenHash } });
  }

  findById(id: string): Promise<AgentClaimRow | null> {
    return this.db.agentClaim.findUnique({ where: { id } });
  }

  /** A new user-code window; the code the page showed before stops working. */
  renewWindow(id: string, windowExpiresAt: Date): Promise<AgentClaimRow> {
    return this.db.agentClaim.update({ where: { id }, data: { windowExpiresAt, userCodeHash: null } });
  }

  async setUserCode(id: string, userCodeHash: string): Promise<void> {
    await this.db.agentClaim.update({ where: { id }, data: { userCodeHash } });
  }

  /**
   * Records a poll in one statement (two agents polling at once cannot both look slow enough):
   * a poll sooner than the interval (less a half-second for network jitter) grows it by `step`.
   */
  async recordPoll(id: string, now: Date, step: number): Promise<RecordedPoll | null> {
    const rows = await this.db.$queryRaw<Array<{ id: string; too_fast: boolean }>>`
      WITH old AS (
        SELECT id, last_polled_at, interval_seconds FROM control.agent_claims WHERE id = ${id}::uuid FOR UPDATE
      ), judged AS (
        SELECT id, interval_seconds,
          (last_polled_at IS NOT NULL
            AND ${now}::timestamptz - last_polled_at < make_interval(secs => interval_seconds - 0.5)) AS too_fast
        FROM old
      )
      UPDATE control.agent_claims c
      SET last_polled_at = ${now},
          interval_seconds = CASE WHEN judged.too_fast THEN judged.interval_seconds + ${step} ELSE judged.interval_seconds END
      FROM judged WHERE c.id = judged.id
      RETURNING c.id, judged.too_fast`;
    if (rows.length === 0) return null;
    const claim = await this.findById(id);
    return claim ? { claim, tooFast: rows[0].too_fast } : null;
  }

  /** Approves or denies a pending claim whose page code matches; false when it was not pending any more. */
  async decide(id: string, userCodeHash: string, decision: ClaimDecision, now: Date): Promise<boolean> {
    const { count } = await this.db.agentClaim.updateMany({
      where: { id, status: 'pending', userCodeHash, windowExpiresAt: { gt: now }, expiresAt: { gt: now } },
      data: {
        status: decision.approve ? 'approved' : 'denied',
        userId: decision.userId,
        scopes: decision.approve ? decision.scopes : [],
        allWorkspaces: decision.allWorkspaces,
        workspaceIds: decision.approve && !decision.allWorkspaces ? decision.workspaceIds : [],
        termsAcceptedAt: decision.approve ? now : null,
        decidedAt: now,
        userCodeHash: null,
      },
    });
    return count === 1;
  }

  /** Turns an approved claim into a grant with its first tokens, once: null when it was redeemed already. */
  async redeem(id: string, grant: NewAgentGrant, tokens: NewTokenPair): Promise<AgentGrantRow | null> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.agentClaim.updateMany({
        where: { id, status: 'approved' },
        data: { status: 'redeemed' },
      });
      if (count === 0) return null;
      const row = await insertGrant(tx, grant, tokens);
      // An agent that got 504 polls again: redeemed now, its tokens would be lost for good.
      assertCallerWaiting();
      return row;
    });
  }
}
